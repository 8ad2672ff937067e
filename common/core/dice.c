/*
 * dice.c - the auditable die: HMAC-SHA256 of "<game-id>/<k>" keyed by the
 * game's seed, reduced to a face by rejecting bytes 252..255.
 *
 * The derivation is the one of docs/dice.md and must stay byte for byte
 * the same: published game records are verified against it.
 */
#include "dice.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

/* "<id>/<k>/<j>": the longest id, two slashes, two 32-bit decimals, NUL. */
#define MSG_MAX (WR_DICE_ID_MAX + 1 + 10 + 1 + 10 + 1)

static const char hex_digits[] = "0123456789abcdef";

static void to_hex(const uint8_t *bytes, size_t n, char *hex)
{
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = hex_digits[bytes[i] >> 4];
        hex[2 * i + 1] = hex_digits[bytes[i] & 0x0f];
    }
    hex[2 * n] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int wr_dice_roll(const uint8_t seed[32], const char *game_id, uint32_t k)
{
    if (seed == NULL || game_id == NULL)
        return -1;
    /* strnlen stops at the bound: an unterminated or huge id is not read far. */
    size_t idlen = strnlen(game_id, WR_DICE_ID_MAX + 1);
    if (idlen > WR_DICE_ID_MAX)
        return -1;

    uint32_t j = 0;
    do {
        char msg[MSG_MAX];
        int n = j == 0 ? snprintf(msg, sizeof msg, "%s/%" PRIu32, game_id, k)
                       : snprintf(msg, sizeof msg, "%s/%" PRIu32 "/%" PRIu32, game_id, k, j);
        if (n < 0 || (size_t)n >= sizeof msg)
            return -1;

        unsigned char h[EVP_MAX_MD_SIZE];
        unsigned int hlen = 0;
        if (HMAC(EVP_sha256(), seed, WR_DICE_SEED_LEN, (const unsigned char *)msg, (size_t)n, h,
                 &hlen) == NULL ||
            hlen != SHA256_DIGEST_LENGTH)
            return -1;
        for (unsigned int i = 0; i < hlen; i++)
            if (h[i] < 252)
                return 1 + h[i] % 6;
        /* All 32 bytes were 252..255: chance (4/256)^32, about 1e-58. */
    } while (++j != 0);
    return -1;
}

void wr_dice_commitment(const uint8_t seed[32], char hex[65])
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    if (SHA256(seed, WR_DICE_SEED_LEN, d) == NULL) {
        hex[0] = '\0';          /* matches no commitment rather than a wrong one */
        return;
    }
    to_hex(d, sizeof d, hex);
}

int wr_dice_parse_seed(const char *hex, uint8_t seed[32])
{
    uint8_t out[WR_DICE_SEED_LEN];
    if (hex == NULL)
        return -1;
    for (size_t i = 0; i < WR_DICE_SEED_LEN; i++) {
        /* A NUL met early is not a hex digit, so nothing past it is read. */
        int hi = hex_value(hex[2 * i]);
        if (hi < 0)
            return -1;
        int lo = hex_value(hex[2 * i + 1]);
        if (lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    if (hex[WR_DICE_HEX_LEN] != '\0')
        return -1;
    memcpy(seed, out, sizeof out);
    return 0;
}

void wr_dice_seed_hex(const uint8_t seed[32], char hex[65])
{
    to_hex(seed, WR_DICE_SEED_LEN, hex);
}
