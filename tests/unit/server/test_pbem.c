/*
 * test_pbem.c - play by email's pure parts (server/pbem.h): a registration
 * written and read back as the store keeps it, the confirmation code, and
 * the tags of reply addresses: made, found in addresses as mail clients
 * and MTAs write them, verified only with the right secret and fields.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbem.h"

static void test_registration_round_trip(void **state)
{
    (void)state;
    struct wrd_pbem_reg r, back;
    char code[WRD_PBEM_CODE_LEN + 1];
    assert_int_equal(wrd_pbem_reg_new(&r, "player@example.org", code), 0);
    assert_int_equal(r.state, WRD_PBEM_PENDING);
    assert_int_equal(strlen(code), WRD_PBEM_CODE_LEN);
    assert_int_equal(strlen(r.secret), 64);
    char *text = wrd_pbem_reg_text(&r);
    assert_non_null(text);
    assert_null(strstr(text, code));            /* the code is kept only as its hash */
    assert_int_equal(wrd_pbem_reg_read(&back, text), 0);
    assert_memory_equal(&r, &back, sizeof r);
    free(text);

    /* the code: wrong ones refused, the right one in any case and with
     * blanks around it confirms, once */
    assert_int_equal(wrd_pbem_reg_confirm(&r, "AAAAAAAA"), -1);
    assert_int_equal(wrd_pbem_reg_confirm(&r, ""), -1);
    assert_int_equal(r.state, WRD_PBEM_PENDING);
    char spaced[32];
    snprintf(spaced, sizeof spaced, "  %s \n", code);
    for (char *c = spaced; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    assert_int_equal(wrd_pbem_reg_confirm(&r, spaced), 0);
    assert_int_equal(r.state, WRD_PBEM_CONFIRMED);
    assert_int_equal(wrd_pbem_reg_confirm(&r, code), -1);
    text = wrd_pbem_reg_text(&r);
    assert_int_equal(wrd_pbem_reg_read(&back, text), 0);
    assert_int_equal(back.state, WRD_PBEM_CONFIRMED);
    free(text);

    /* none: no text; NULL text: none; malformed text: none, refused */
    struct wrd_pbem_reg none;
    memset(&none, 0, sizeof none);
    assert_null(wrd_pbem_reg_text(&none));
    assert_int_equal(wrd_pbem_reg_read(&back, NULL), 0);
    assert_int_equal(back.state, WRD_PBEM_NONE);
    static const char *const bad[] = {
        "{", "[]", "{\"state\":\"confirmed\"}",
        "{\"state\":\"sure\",\"address\":\"a@b.c\",\"secret\":\"00\",\"code\":\"\"}",
        /* one string over two lines (in parentheses: not a missing comma) */
        ("{\"state\":\"confirmed\",\"address\":\"not an address\",\"secret\":"
         "\"0000000000000000000000000000000000000000000000000000000000000000\",\"code\":\"\"}"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(wrd_pbem_reg_read(&back, bad[i]), -1);
        assert_int_equal(back.state, WRD_PBEM_NONE);
    }
}

static void test_tags(void **state)
{
    (void)state;
    struct wrd_pbem_reg r, other;
    char code[WRD_PBEM_CODE_LEN + 1];
    assert_int_equal(wrd_pbem_reg_new(&r, "p@example.org", code), 0);
    assert_int_equal(wrd_pbem_reg_new(&other, "p@example.org", code), 0);
    char tag[WRD_PBEM_TAG_MAX], addr[160];
    wrd_pbem_tag(&r, "g-0123456789ab", 1, "42", tag);
    assert_int_equal(wrd_pbem_reply_address("play@games.example.org", tag, addr, sizeof addr), 0);
    /* LOCAL+TAG@DOMAIN fits an address's 64-byte local part */
    assert_true(strchr(addr, '@') - addr <= 64);

    /* found in the forms mail clients and MTAs write */
    char forms[4][200];
    snprintf(forms[0], sizeof forms[0], "%s", addr);
    snprintf(forms[1], sizeof forms[1], "<%s>", addr);
    snprintf(forms[2], sizeof forms[2], "%s", addr);
    for (char *c = forms[2]; *c; c++)          /* an MTA that upper-cases */
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    snprintf(forms[3], sizeof forms[3], "my+box+%s", tag);
    strcat(forms[3], "@games.example.org");   /* a local part with a '+' of its own */
    for (int i = 0; i < 4; i++) {
        struct wrd_pbem_tag t;
        assert_int_equal(wrd_pbem_tag_parse(forms[i], &t), 0);
        assert_string_equal(t.game, "g-0123456789ab");
        assert_int_equal(t.seat, 1);
        assert_string_equal(t.what, "42");
        assert_true(wrd_pbem_tag_verify(&r, &t));
        assert_false(wrd_pbem_tag_verify(&other, &t));   /* another seat's secret */
    }

    /* every field is covered by the MAC: change one, it no longer verifies */
    struct wrd_pbem_tag t;
    assert_int_equal(wrd_pbem_tag_parse(addr, &t), 0);
    struct wrd_pbem_tag changed[4] = { t, t, t, t };
    snprintf(changed[0].game, sizeof changed[0].game, "g-0123456789ac");
    changed[1].seat = 0;
    snprintf(changed[2].what, sizeof changed[2].what, "43");
    changed[3].mac[0] = changed[3].mac[0] == '0' ? '1' : '0';
    for (int i = 0; i < 4; i++)
        assert_false(wrd_pbem_tag_verify(&r, &changed[i]));

    /* addresses without a tag of the right shape */
    static const char *const none[] = {
        "play@games.example.org", "play+@games.example.org", "play+g-1.1.42@x.org",
        "play+g-0123456789ab.1.42.0123@x.org",                       /* a short MAC */
        "play+g-0123456789ab.x.42.0123456789abcdef0123@x.org",       /* seat not a number */
        "play+g-0123456789ab.1.42.0123456789abcdef012z@x.org",       /* not hex */
        "play+g-0123456789ab.1.42.0123456789abcdef0123",             /* no domain */
        "g-0123456789ab.1.42.0123456789abcdef0123@x.org",            /* no '+' */
        "", NULL,
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        assert_int_equal(wrd_pbem_tag_parse(none[i], &t), -1);

    /* a registration of none verifies nothing */
    struct wrd_pbem_reg empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(wrd_pbem_tag_parse(addr, &t), 0);
    assert_false(wrd_pbem_tag_verify(&empty, &t));
    assert_int_equal(wrd_pbem_reply_address("no-at-sign", tag, addr, sizeof addr), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registration_round_trip),
        cmocka_unit_test(test_tags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
