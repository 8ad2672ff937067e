/*
 * fuzz_mail_address.c - libFuzzer target for the mail address check
 * (server/mail.h: wrd_mail_check_address), which sees the addresses
 * clients give (create, claim, notify).
 *
 * The input is an address (cut at its first NUL, as a JSON string reaches
 * the server). The promises: the answer is 0 or WRD_MAIL_EBADADDR, with a
 * sentence exactly when refused; an accepted address is at most 254 bytes,
 * printable ASCII without blanks, quotes, brackets, commas, semicolons,
 * colons or backslashes, has exactly one '@' with a local part of 1..64
 * bytes before it and a domain of non-empty labels of letters, digits and
 * hyphens (none at a label's ends) after it; and the check is pure (the
 * same answer twice). An accepted address also formats as a message's To
 * (wrd_mail_format takes it: no header injection can pass the check).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond) do { if (!(cond)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char addr[1024];
    size_t n = size < sizeof addr - 1 ? size : sizeof addr - 1;
    memcpy(addr, data, n);
    addr[n] = '\0';
    n = strlen(addr);
    const char *why = "unset";
    int r = wrd_mail_check_address(addr, &why);
    check(r == 0 || r == WRD_MAIL_EBADADDR);
    check(r == wrd_mail_check_address(addr, NULL));
    if (r != 0) {
        check(why != NULL && why[0] != '\0');
        return 0;
    }
    check(why == NULL);
    check(n >= 3 && n <= WRD_MAIL_MAX_ADDRESS);
    const char *at = strchr(addr, '@');
    check(at != NULL && strchr(at + 1, '@') == NULL);
    check(at - addr >= 1 && at - addr <= 64);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)addr[i];
        check(c > 0x20 && c < 0x7f);
        check(strchr("\"(),:;<>[\\]", c) == NULL);
    }
    const char *d = at + 1;
    check(*d != '\0');
    for (;;) {
        size_t len = strcspn(d, ".");
        check(len >= 1 && len <= 63);
        check(d[0] != '-' && d[len - 1] != '-');
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)d[i];
            check((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                  || c == '-');
        }
        if (d[len] == '\0')
            break;
        d += len + 1;
    }
    struct wrd_mail_msg m = {
        .from = "warroom@example.org", .to = addr, .reply_to = addr,
        .subject = "s", .text = "t\n", .date_ms = 0,
    };
    size_t len = 0;
    int err = -1;
    char *msg = wrd_mail_format(&m, &len, &err);
    check(msg != NULL && err == 0);
    /* The address stands on its own header line, whole. */
    check(strstr(msg, "\r\nTo: ") != NULL);
    const char *to = strstr(msg, "\r\nTo: ") + 6;
    check(strncmp(to, addr, n) == 0 && to[n] == '\r' && to[n + 1] == '\n');
    free(msg);
    return 0;
}
