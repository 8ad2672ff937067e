/*
 * fuzz_pbem_tag.c - libFuzzer target for the reply tags of play by email
 * (server/pbem.h): wrd_pbem_tag_parse reads the addresses a mail_in
 * carries, which anyone may send, and wrd_pbem_reg_read reads a seat's
 * registration back from the store.
 *
 * The input, cut at its first NUL, is an address. The promises: a tag
 * parsed has a game of at most 23 bytes of lowercase letters, digits and
 * '-', a seat from 0 to 999, a "what" of lowercase letters and digits, and
 * a MAC of exactly 20 lowercase hex digits; it verifies with a seat's
 * secret only when it is that seat's own tag (made again here, it must
 * verify; changed in its MAC, it must not). A registration read from the
 * input is either none or one whose text reads back the same.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond) do { if (!(cond)) abort(); } while (0)

static int is_lower_hex(const char *s)
{
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    struct wrd_pbem_tag t;
    if (wrd_pbem_tag_parse(s, &t) == 0) {
        check(strlen(t.game) >= 1 && strlen(t.game) < sizeof t.game);
        for (const char *c = t.game; *c; c++)
            check((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-');
        check(t.seat >= 0 && t.seat <= 999);
        check(strlen(t.what) >= 1);
        for (const char *c = t.what; *c; c++)
            check((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'));
        check(strlen(t.mac) == WRD_PBEM_MAC_LEN && is_lower_hex(t.mac));
        /* a fixed secret: the tag made for the parsed fields verifies, and
         * the parsed one only if it is that one */
        struct wrd_pbem_reg r;
        memset(&r, 0, sizeof r);
        r.state = WRD_PBEM_CONFIRMED;
        memset(r.secret, 'a', 64);
        char tag[WRD_PBEM_TAG_MAX], addr[160];
        wrd_pbem_tag(&r, t.game, t.seat, t.what, tag);
        check(wrd_pbem_reply_address("p@x.org", tag, addr, sizeof addr) == 0);
        struct wrd_pbem_tag mine;
        check(wrd_pbem_tag_parse(addr, &mine) == 0);
        check(wrd_pbem_tag_verify(&r, &mine));
        check(wrd_pbem_tag_verify(&r, &t) == (strcmp(t.mac, mine.mac) == 0));
        mine.mac[0] = mine.mac[0] == '0' ? '1' : '0';
        check(!wrd_pbem_tag_verify(&r, &mine));
    }

    struct wrd_pbem_reg reg, back;
    if (wrd_pbem_reg_read(&reg, s) == 0 && reg.state != WRD_PBEM_NONE) {
        char *text = wrd_pbem_reg_text(&reg);
        check(text != NULL);
        check(wrd_pbem_reg_read(&back, text) == 0);
        check(memcmp(&reg, &back, sizeof reg) == 0);
        free(text);
    }
    free(s);
    return 0;
}
