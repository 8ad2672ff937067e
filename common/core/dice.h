/*
 * dice.h - the auditable die: every roll of a game derived from its seed.
 *
 * Each game has a 32-byte secret seed. Its commitment, the lowercase hex
 * SHA-256 of the seed, is in the game's state from the start; the seed is
 * revealed when the game ends. Roll number k (0, 1, 2, ... over the whole
 * game) is
 *
 *   H = HMAC-SHA256(key = seed, message = "<game-id>/<k>")
 *
 * and the face is 1 + (b mod 6) for the first byte b of H (from byte 0)
 * with b < 252. Rejecting 252..255 makes the six faces exactly equally
 * likely (252 = 6 * 42). Should no byte of H be below 252, the message
 * becomes "<game-id>/<k>/1", then "<game-id>/<k>/2", and so on. k and the
 * retry counter are written in decimal without leading zeros; the id's
 * bytes are used as they are.
 *
 * Anyone holding the seed can recompute every roll (docs/dice.md has a
 * ten-line Python verifier). Pure functions: no state, no I/O.
 */
#ifndef WR_DICE_H
#define WR_DICE_H

#include <stdint.h>

#define WR_DICE_SEED_LEN 32     /* bytes of a seed */
#define WR_DICE_HEX_LEN 64      /* hex digits of a seed or a commitment */
#define WR_DICE_ID_MAX 63       /* longest game id, in bytes (WL_GAME_ID_MAX - 1) */

/* Roll number k of the game game_id (NUL-terminated, borrowed) with seed.
 * Returns the face, 1..6, or -1 when game_id is NULL or longer than
 * WR_DICE_ID_MAX bytes (no roll is made from a truncated id, which a
 * verifier would not reproduce), or when libcrypto fails. */
int wr_dice_roll(const uint8_t seed[32], const char *game_id, uint32_t k);

/* Write the commitment of seed, the lowercase hex SHA-256 of its 32 bytes,
 * into hex: 64 digits and a NUL. */
void wr_dice_commitment(const uint8_t seed[32], char hex[65]);

/* Parse a seed written as exactly 64 hex digits (either case) followed by
 * the NUL. Returns 0 and fills seed, or -1 (seed untouched) when hex is
 * NULL, shorter or longer, or holds anything but hex digits. */
int wr_dice_parse_seed(const char *hex, uint8_t seed[32]);

/* Write seed as 64 lowercase hex digits and a NUL into hex. */
void wr_dice_seed_hex(const uint8_t seed[32], char hex[65]);

#endif
