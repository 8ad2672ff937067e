/*
 * pbem.h - play by email (docs/protocol.md, "Play by email"): a seat's
 * mail registration, the tags that make its reply addresses, and the text
 * of its mails, written from the seat's own view of the game (present.h),
 * so a mail shows what the seat's terminal or web page shows and nothing
 * sealed from it.
 *
 * Nothing here decides when a mail goes or what a reply does: games.c
 * does, keeps the registration in the seat's store row (the JSON text of
 * wrd_pbem_reg_text) and applies the orders of a reply with the command
 * path every other command takes. Sending is mail.h's.
 *
 * The tag. A reply address is LOCAL+TAG@DOMAIN (--mail-reply gives
 * LOCAL@DOMAIN), TAG = GAME.SEAT.WHAT.MAC: the game's id, the seat's index,
 * WHAT = the game's version the mail was written at (or "c" for the
 * confirmation mail), and MAC = the first 20 hex digits of
 * HMAC-SHA256(the seat's secret, "GAME.SEAT.WHAT"). A reply is matched to
 * its seat only by a tag that verifies (never by its From); a tag of a
 * version is good only while the game is still at that version, so a
 * re-sent or late reply changes nothing. A new address, or none, means a
 * new secret: the tags of older mails stop verifying.
 */
#ifndef WRD_PBEM_H
#define WRD_PBEM_H

#include <stddef.h>
#include <stdint.h>

#include "mail.h"
#include "present.h"

struct json_t;
struct wr_ruleset;

enum wrd_pbem_state {
    WRD_PBEM_NONE = 0,          /* no address */
    WRD_PBEM_PENDING,           /* registered; only the confirmation mail goes to it */
    WRD_PBEM_CONFIRMED,         /* every mail goes to it */
};

/* The words of the states, as the protocol says them ("none", ...). */
const char *wrd_pbem_state_name(int state);

#define WRD_PBEM_CODE_LEN 8     /* characters of a confirmation code */
#define WRD_PBEM_MAC_LEN 20     /* hex digits of a tag's MAC */
#define WRD_PBEM_TAG_MAX 80     /* bytes of a tag, NUL included: room for any tag
                                 * wrd_pbem_tag_parse gives (its fields at their
                                 * longest, 23 + 3 + 23 + 20 bytes, and 3 dots) */

/* A seat's registration. A value: copy it freely. */
struct wrd_pbem_reg {
    int state;
    char address[WRD_MAIL_MAX_ADDRESS + 1];
    char secret[65];            /* hex of 32 random bytes: the key of the seat's tags */
    char code_hash[65];         /* hex SHA-256 of the confirmation code; "" once confirmed */
    int digest;                 /* 1: no mail each time the game awaits the seat, one a day
                                 * (games.c, the digest) */
};

/* A pending registration of address (digest off) (checked by the caller with
 * wrd_mail_check_address): a new secret, and a new confirmation code into
 * code (WRD_PBEM_CODE_LEN characters from an alphabet without look-alikes,
 * NUL-terminated). 0, or -1 when no randomness could be had. */
int wrd_pbem_reg_new(struct wrd_pbem_reg *r, const char *address,
                     char code[WRD_PBEM_CODE_LEN + 1]);

/* Confirm r with code (case and blanks around it ignored): 0, or -1 when
 * it is not r's code or r is not pending. Compared in constant time. */
int wrd_pbem_reg_confirm(struct wrd_pbem_reg *r, const char *code);

/* The registration as the store keeps it: compact JSON text (caller
 * frees), NULL for none (or when memory runs out: check r->state). */
char *wrd_pbem_reg_text(const struct wrd_pbem_reg *r);

/* Back from that text (NULL: none). 0, or -1 when it is malformed (then
 * *r is none). */
int wrd_pbem_reg_read(struct wrd_pbem_reg *r, const char *text);

/* A parsed tag. */
struct wrd_pbem_tag {
    char game[24];
    int seat;
    char what[24];              /* a version in decimal, or "c" */
    char mac[WRD_PBEM_MAC_LEN + 1];
};

/* The tag of r for (game, seat, what) into out (WRD_PBEM_TAG_MAX bytes). */
void wrd_pbem_tag(const struct wrd_pbem_reg *r, const char *game, int seat, const char *what,
                  char out[WRD_PBEM_TAG_MAX]);

/* The tag in address (LOCAL+TAG@DOMAIN, any case for the hex digits and
 * the domain; angle brackets around it allowed): 0 with *t, or -1 when it
 * holds none of the right shape. Pure: says nothing of whose it is. */
int wrd_pbem_tag_parse(const char *address, struct wrd_pbem_tag *t);

/* Does t verify with r (its MAC is r's for its game, seat and what)?
 * Compared in constant time. */
int wrd_pbem_tag_verify(const struct wrd_pbem_reg *r, const struct wrd_pbem_tag *t);

/* reply (LOCAL@DOMAIN) with tag inserted: LOCAL+TAG@DOMAIN into out. 0, or
 * -1 when reply has no '@' or out is too small. */
int wrd_pbem_reply_address(const char *reply, const char *tag, char *out, size_t n);

/* What a mail about a game is written from (every pointer borrowed for
 * the call). */
struct wrd_pbem_game {
    const char *id;
    const struct wr_ruleset *rs;
    const char *scenario_name;  /* may be "" */
    const char *scenario_text;  /* the scenario as stored (JSON text), or NULL */
    const struct json_t *options;   /* or NULL */
    const char *seat;
    int64_t version;
    const struct json_t *state; /* the seat's projection, server section included */
    const char *url;            /* --mail-url, or NULL: no link */
};

/* The seat's view of the game, fed its state: a new view (close it with
 * its pr->close), or NULL with why. */
struct wr_view *wrd_pbem_view(const struct wrd_pbem_game *g, struct wr_refusal *why);

/* The body of a game mail, appended to out: a line naming game, ruleset,
 * seat and version; the board as text (76 columns, 40 lines, centred on
 * the action as the view centres it); the decision panel; when the seat
 * is awaited and replies are read (replies 1), the orders section (how
 * to reply, and each order's synopsis: the panel's examples fit the game
 * now, the orders' own would not); the link when g->url is set. v is the
 * view of wrd_pbem_view. */
void wrd_pbem_game_text(const struct wr_view *v, const struct wrd_pbem_game *g, int awaited,
                        int replies, struct wr_strbuf *out);

/* Everything a mail needs besides its words (borrowed for the call). */
struct wrd_pbem_post {
    struct wrd_mailer *mailer;
    const char *from;           /* --mail-from */
    const char *reply;          /* --mail-reply, or NULL: replies are not read */
    int64_t now_ms;
};

/* Format and queue one mail to r's address: Subject subject, body text,
 * Reply-To tagged (game, seat, what) when p->reply is set, the SVG svg
 * attached as board.svg when svg is not NULL, a Message-ID of its own
 * (GAME.SEAT.WHAT.RANDOM@ the domain of p->from), In-Reply-To in_reply_to
 * when it is not NULL (checked with wrd_mail_check_msgid by the caller).
 * The mailer counts it under "GAME/SEATNAME". 0, or a WRD_MAIL_* error. */
int wrd_pbem_post(const struct wrd_pbem_post *p, const struct wrd_pbem_reg *r, const char *game,
                  int seat, const char *seat_name, const char *what, const char *subject,
                  const char *text, const struct wr_strbuf *svg, const char *in_reply_to);

#endif
