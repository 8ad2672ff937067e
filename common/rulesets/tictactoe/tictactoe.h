/*
 * tictactoe.h - what tictactoe's presentation (tictactoe_present.c) shares
 * with its rules (tictactoe.c): the ruleset, its presentation, and the one
 * judge of a mark both use, so a client's check and the server's verdict
 * are the same code.
 */
#ifndef WR_TICTACTOE_H
#define WR_TICTACTOE_H

#include "present.h"
#include "reason.h"
#include "ruleset.h"

struct json_t;

extern const struct wr_ruleset wr_ruleset_tictactoe;
extern const struct wr_present wr_present_tictactoe;

/* Judge cmd (borrowed) from seat on board (9 cells of '.', 'x', 'o') after
 * moves marks, with winner 0 while running ('x', 'o' or 'd' once over).
 * 0 (ok) and *cell, the cell to mark; or the reason, with why filled from
 * tictactoe's reason table (the wire code the server sends). */
int ttt_judge(const char *board, int moves, char winner, const char *seat,
              const struct json_t *cmd, int *cell, struct wr_refusal *why);

#endif
