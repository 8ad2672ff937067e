/*
 * test_dice.c - the auditable die against vectors computed independently
 * with Python's hmac and hashlib (the script is in docs/dice.md, "Test
 * vectors"). Table-driven: each row is numbered so a failure names it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "dice.h"

/* Seeds of the vectors (names as in the Python script). */
#define SEED_A "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define SEED_Z "0000000000000000000000000000000000000000000000000000000000000000"
#define SEED_F "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
#define SEED_W "7edb82760cd813dcf3ce6c74544909cabfeb191eaf03df8ef188de02fd300fac" /* sha256("warroom") */
#define ID63 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-0123456789ab"

static void seed_of(const char *hex, uint8_t seed[32])
{
    if (wr_dice_parse_seed(hex, seed) != 0)
        fail_msg("test data: seed '%s' does not parse", hex);
}

static void test_known_rolls(void **state)
{
    static const struct { int row; const char *seed, *id; uint32_t k; int face; } t[] = {
        { 1, SEED_A, "g1", 0, 6 },
        { 2, SEED_A, "g1", 1, 5 },
        { 3, SEED_A, "g1", 2, 6 },
        { 4, SEED_A, "g1", 41, 3 },
        { 5, SEED_A, "g1", 4294967295u, 5 },        /* largest k */
        { 6, SEED_A, "waterloo-1815-06-18", 0, 6 },
        { 7, SEED_A, "waterloo-1815-06-18", 7, 6 },
        { 8, SEED_Z, "g1", 0, 1 },
        { 9, SEED_Z, "g1", 1, 6 },
        { 10, SEED_F, "g1", 0, 4 },
        { 11, SEED_F, "", 0, 1 },                   /* empty id: message "/0" */
        { 12, SEED_W, "g1", 0, 6 },
        { 13, SEED_W, "g1", 100, 3 },
        { 14, SEED_W, ID63, 0, 6 },                 /* longest id */
        { 15, SEED_W, ID63, 12345, 3 },
    };
    (void)state;
    assert_int_equal(strlen(ID63), WR_DICE_ID_MAX);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t seed[32];
        seed_of(t[i].seed, seed);
        int f = wr_dice_roll(seed, t[i].id, t[i].k);
        if (f != t[i].face)
            fail_msg("row %d: roll('%s', %u) = %d, want %d", t[i].row, t[i].id,
                     (unsigned)t[i].k, f, t[i].face);
    }
}

/* The rejection rule: bytes 252..255 are skipped and the face comes from the
 * first later byte below 252. Each row's k was found with Python so that H
 * starts with the given bytes, and its face differs from what byte 0 (and
 * byte 1, in rows 3-4) would have given. */
static void test_rejection(void **state)
{
    static const struct { int row; const char *seed; uint32_t k; uint8_t h[4]; int face; } t[] = {
        { 1, SEED_A, 38, { 0xfe, 0x97, 0x31, 0xa7 }, 2 },      /* byte 0 would give 3 */
        { 2, SEED_W, 115, { 0xfc, 0xe2, 0x05, 0xaf }, 5 },     /* byte 0 would give 1 */
        { 3, SEED_A, 7839, { 0xff, 0xff, 0x18, 0xf2 }, 1 },    /* bytes 0, 1 would give 4 */
        { 4, SEED_W, 14512, { 0xfd, 0xfc, 0x95, 0x62 }, 6 },   /* bytes 0, 1: 2, 1 */
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t seed[32];
        seed_of(t[i].seed, seed);
        /* The premise, checked here so a mistyped row cannot pass vacuously. */
        char msg[32];
        int n = snprintf(msg, sizeof msg, "g1/%u", (unsigned)t[i].k);
        unsigned char h[EVP_MAX_MD_SIZE];
        unsigned int hlen = 0;
        assert_non_null(HMAC(EVP_sha256(), seed, 32, (const unsigned char *)msg, (size_t)n, h,
                             &hlen));
        if (hlen != 32 || memcmp(h, t[i].h, 4) != 0)
            fail_msg("row %d: H(\"%s\") starts %02x%02x%02x%02x", t[i].row, msg, h[0], h[1],
                     h[2], h[3]);
        int f = wr_dice_roll(seed, "g1", t[i].k);
        if (f != t[i].face)
            fail_msg("row %d: roll(k=%u) = %d, want %d", t[i].row, (unsigned)t[i].k, f,
                     t[i].face);
    }
}

/* Faces of k = 0..9999 (seed A, id "g1") as ASCII digits hash to the value
 * Python computed; 146 of those rolls skip byte 0. */
static void test_sequence_digest(void **state)
{
    static char seq[10000];
    uint8_t seed[32], d[SHA256_DIGEST_LENGTH];
    char hex[65];
    (void)state;
    seed_of(SEED_A, seed);
    for (uint32_t k = 0; k < 10000; k++)
        seq[k] = (char)('0' + wr_dice_roll(seed, "g1", k));
    assert_non_null(SHA256((const unsigned char *)seq, sizeof seq, d));
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    assert_string_equal(hex, "d13b8c0be66e4ba67ccf92b2e88a76cdfff329c01d2bba66a9a0a0d5240727e7");
}

static void test_commitment(void **state)
{
    static const struct { int row; const char *seed, *commitment; } t[] = {
        { 1, SEED_A, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd" },
        { 2, SEED_Z, "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925" },
        { 3, SEED_F, "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051" },
        { 4, SEED_W, "0580b87946a3caba69ee9cc61599882b5514db47f8de46838ab9f81ec371afa9" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t seed[32];
        char hex[65];
        seed_of(t[i].seed, seed);
        memset(hex, '#', sizeof hex);
        wr_dice_commitment(seed, hex);
        if (strcmp(hex, t[i].commitment) != 0)
            fail_msg("row %d: commitment %s, want %s", t[i].row, hex, t[i].commitment);
    }
}

/* Every face is 1..6, and over 60,000 rolls each face comes up 9,000 to
 * 11,000 times (expected 10,000, standard deviation about 91). */
static void test_distribution(void **state)
{
    uint8_t seed[32];
    int count[7] = { 0 };
    (void)state;
    seed_of(SEED_W, seed);
    for (uint32_t k = 0; k < 60000; k++) {
        int f = wr_dice_roll(seed, "stat", k);
        if (f < 1 || f > 6)
            fail_msg("k=%u: face %d", (unsigned)k, f);
        count[f]++;
    }
    for (int f = 1; f <= 6; f++)
        if (count[f] < 9000 || count[f] > 11000)
            fail_msg("face %d came up %d times in 60000", f, count[f]);
}

static void test_bad_ids(void **state)
{
    uint8_t seed[32];
    (void)state;
    seed_of(SEED_A, seed);
    assert_int_equal(wr_dice_roll(seed, NULL, 0), -1);
    assert_int_equal(wr_dice_roll(seed, ID63 "y", 0), -1);    /* 64 bytes: too long */
    char huge[4096];
    memset(huge, 'x', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    assert_int_equal(wr_dice_roll(seed, huge, 0), -1);
    /* 64 bytes and no NUL at all: rejected without reading past the array
     * (ASan builds would catch an overread). */
    char unterminated[WR_DICE_ID_MAX + 1];
    memset(unterminated, 'x', sizeof unterminated);
    assert_int_equal(wr_dice_roll(seed, unterminated, 0), -1);
}

static void test_seed_hex(void **state)
{
    static const struct { int row; const char *text; int ok; const char *canon; } t[] = {
        { 1, SEED_A, 1, SEED_A },
        { 2, SEED_W, 1, SEED_W },
        { 3, "7EDB82760CD813DCF3CE6C74544909CABFEB191EAF03DF8EF188DE02FD300FAC", 1, SEED_W },
        { 4, "7Edb82760cd813dcf3ce6c74544909cabfeb191eaf03df8ef188de02fd300fAc", 1, SEED_W },
        { 5, "", 0, NULL },
        { 6, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1", 0, NULL }, /* 63 */
        { 7, SEED_A "0", 0, NULL },                                                     /* 65 */
        { 8, SEED_A SEED_A, 0, NULL },                                                  /* 128 */
        { 9, "g00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, NULL },
        { 10, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g", 0, NULL },
        { 11, "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, NULL },
        { 12, " 00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, NULL },
        { 13, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f ", 0, NULL },
        { 14, "00010203040506070809\na0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, NULL },
        { 15, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e-1", 0, NULL },
        { 16, "\xff" "00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0, NULL },
        { 17, "0", 0, NULL },
    };
    (void)state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint8_t seed[32];
        char hex[65];
        memset(seed, 0xa5, sizeof seed);
        int rc = wr_dice_parse_seed(t[i].text, seed);
        if ((rc == 0) != t[i].ok)
            fail_msg("row %d: parse('%s') returned %d", t[i].row, t[i].text, rc);
        if (!t[i].ok) {
            for (size_t b = 0; b < sizeof seed; b++)
                if (seed[b] != 0xa5)
                    fail_msg("row %d: a refused parse changed the seed", t[i].row);
            continue;
        }
        wr_dice_seed_hex(seed, hex);
        if (strcmp(hex, t[i].canon) != 0)
            fail_msg("row %d: '%s' -> %s, want %s", t[i].row, t[i].text, hex, t[i].canon);
    }
    /* A string cut short by a NUL is refused, and nothing past the NUL is read. */
    char shortbuf[11] = "0001020304";
    uint8_t seed[32];
    assert_int_equal(wr_dice_parse_seed(shortbuf, seed), -1);
    assert_int_equal(wr_dice_parse_seed(NULL, seed), -1);

    /* Format then parse gives back every byte value. */
    uint8_t in[32], out[32];
    char hex[65];
    for (int base = 0; base < 256; base += 32) {
        for (int b = 0; b < 32; b++)
            in[b] = (uint8_t)(base + b);
        wr_dice_seed_hex(in, hex);
        assert_int_equal(strlen(hex), 64);
        for (int c = 0; c < 64; c++)
            assert_true((hex[c] >= '0' && hex[c] <= '9') || (hex[c] >= 'a' && hex[c] <= 'f'));
        assert_int_equal(wr_dice_parse_seed(hex, out), 0);
        assert_memory_equal(in, out, 32);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_rolls),
        cmocka_unit_test(test_rejection),
        cmocka_unit_test(test_sequence_digest),
        cmocka_unit_test(test_commitment),
        cmocka_unit_test(test_distribution),
        cmocka_unit_test(test_bad_ids),
        cmocka_unit_test(test_seed_hex),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
