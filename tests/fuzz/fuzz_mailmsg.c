/*
 * fuzz_mailmsg.c - libFuzzer target for the mail parser of `warroom mail-in`
 * (client-cli/mailmsg.h). The input is one message. Whatever it is, the
 * parse either fails with a sentence and leaves nothing behind, or keeps
 * every promise of mailmsg.h (else abort()):
 *   - at most WRC_MAIL_MAX_LINES lines, each at most WRC_MAIL_MAX_LINE
 *     bytes, non-empty, valid UTF-8, with no control character (no CR or
 *     LF, no NUL: its strlen is all of it), not starting or ending with a
 *     blank, and none starting with '>' (quoted text);
 *   - at most WRC_MAIL_MAX_TO recipients, each at most WRC_MAIL_MAX_ADDR
 *     bytes of printable ASCII with an '@', no two the same without regard
 *     to case;
 *   - the Message-ID at most WRC_MAIL_MAX_ID bytes of valid UTF-8, the
 *     Subject valid UTF-8, neither with a control character;
 *   - the same input parsed twice gives the same answer (no hidden state).
 * The seed corpus is the unit test's fixtures (tests/unit/client-cli/mail/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mailmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise stops the fuzzer with a crash report. */
#define check(cond) do { if (!(cond)) abort(); } while (0)

/* Valid UTF-8 (no overlong form, no surrogate, at most U+10FFFF) without a
 * control character (C0, DEL). */
static int clean_utf8(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    while (*s) {
        if (*s < 0x20 || *s == 0x7F)
            return 0;
        if (*s < 0x80) {
            s++;
            continue;
        }
        int k;
        uint32_t cp, min;
        if ((*s & 0xE0) == 0xC0)
            k = 2, cp = *s & 0x1F, min = 0x80;
        else if ((*s & 0xF0) == 0xE0)
            k = 3, cp = *s & 0x0F, min = 0x800;
        else if ((*s & 0xF8) == 0xF0)
            k = 4, cp = *s & 0x07, min = 0x10000;
        else
            return 0;
        for (int i = 1; i < k; i++) {
            if ((s[i] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        s += k;
    }
    return 1;
}

static int same(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wrc_mailmsg m, again;
    char err[256] = "", err2[256] = "";
    int rc = wrc_mailmsg_parse((const char *)data, size, &m, err, sizeof err);
    int rc2 = wrc_mailmsg_parse((const char *)data, size, &again, err2, sizeof err2);
    check(rc == rc2);
    if (rc != 0) {
        check(rc == -1 && err[0] != '\0' && strcmp(err, err2) == 0);
        check(m.lines == NULL && m.to == NULL && m.message_id == NULL && m.subject == NULL &&
              m.from == NULL && m.nlines == 0 && m.nto == 0);
        return 0;
    }
    check(m.nlines >= 0 && m.nlines <= WRC_MAIL_MAX_LINES && m.nlines == again.nlines);
    for (int i = 0; i < m.nlines; i++) {
        const char *l = m.lines[i];
        size_t n = strlen(l);
        check(n > 0 && n <= WRC_MAIL_MAX_LINE);
        check(clean_utf8(l));
        check(l[0] != '>' && l[0] != ' ' && l[n - 1] != ' ');
        check(strcmp(l, again.lines[i]) == 0);
    }
    check(m.nto >= 0 && m.nto <= WRC_MAIL_MAX_TO && m.nto == again.nto);
    for (int i = 0; i < m.nto; i++) {
        const char *a = m.to[i];
        size_t n = strlen(a);
        check(n > 0 && n <= WRC_MAIL_MAX_ADDR && strchr(a, '@') != NULL);
        for (size_t k = 0; k < n; k++)
            check((unsigned char)a[k] > 32 && (unsigned char)a[k] < 127);
        for (int j = 0; j < i; j++)
            check(strcasecmp(a, m.to[j]) != 0);
        check(strcmp(a, again.to[i]) == 0);
    }
    check(m.message_id == NULL || (strlen(m.message_id) <= WRC_MAIL_MAX_ID &&
                                   clean_utf8(m.message_id)));
    check(m.subject == NULL || clean_utf8(m.subject));
    check(same(m.message_id, again.message_id) && same(m.subject, again.subject) &&
          same(m.from, again.from));
    wrc_mailmsg_free(&m);
    wrc_mailmsg_free(&again);
    check(m.lines == NULL && m.nlines == 0 && m.to == NULL);
    return 0;
}
