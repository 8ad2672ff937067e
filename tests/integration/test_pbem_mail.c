#define _GNU_SOURCE
/*
 * test_pbem_mail.c - play by email end to end (issue 17; the feature as
 * docs/protocol.md and the play-by-email specification describe it): the
 * real warroomd sending through a real SMTP server on loopback
 * (tests/support/smtp_sink.py, through tests/support/mailbox.h), players
 * whose only interface after set-up is mail, their replies written as a
 * mail client writes them and piped into `warroom mail-in` as an MTA
 * would. One server and one sink for the file, started with
 *
 *     --smtp smtp://127.0.0.1:SINK --mail-from warroom@test.example
 *     --mail-reply play@test.example --mail-url http://127.0.0.1:WEB/
 *     --mail-retry-ms 100 --max-mails-per-address 100 --mail-digest-ms 1500
 *
 *   a. a Waterloo game of the small scenario (tests' scenarios/test/small.json:
 *      the units start close, a battle comes in the first turn) created with
 *      `warroom new --mail`, claimed with `warroom claim --mail`, each seat
 *      confirming by a reply to its confirmation mail; then, mail by mail,
 *      each game mail carries the first line (game, ruleset, seat,
 *      version), the board (its number line and row lines), the decision
 *      panel (the same as `warroom status` shows the seat), the orders
 *      section with examples, the link, and a board.svg attachment that is
 *      an SVG; the players reply with orders taken from the mails (moves
 *      that bring units into contact when the mail lists them as not moved,
 *      an attack when the panel owes one, the panels' examples) until the
 *      end of a turn in which a battle was fought: the game record has a
 *      resolved battle with its die, and the state's turn advanced;
 *   b. an illegal order by reply is refused in the answer mail with the
 *      rules' sentence and code (the very ones `warroom --json do` gives for
 *      that order in that position) and changes nothing (same version and
 *      state); a reply of three lines, the second illegal, is answered
 *      `done:`, `refused:`, `not tried:`, and only the first stands;
 *   c. forged replies (the seat's own From, a tag with a wrong mac, another
 *      seat's index, another game's id) and a re-sent reply (the very same
 *      message after it was applied) print `ignored`, change nothing, and
 *      send no mail: the next mail in the maildir after them is the answer
 *      to a legal reply sent next;
 *   d. confirmation: a pending address gets its confirmation mail and
 *      nothing else while the game awaits its seat; a wrong `notify
 *      --confirm` code is refused (bad_code), the right one confirms and the
 *      turn mails start; `notify --no-mail` stops them and makes the mails'
 *      tags already sent ignored (even one whose version is still the
 *      game's);
 *   e. `warroom mail-in` exits 65 on what is not a message and 75 when the
 *      server cannot be reached (the MTA tries again), and a tag nobody
 *      made is answered `ignored`;
 *   f. in a game of 10 s per decision, the silent French get the reminder
 *      (when the decision is due, with the game and its orders), then the
 *      forfeit mail with its reason, and the Allies a mail saying the game
 *      is over and how; a seat on the digest (`notify --digest`; the server
 *      runs a digest every 1.5 s here) gets no turn mail but the digest's,
 *      and its reply to it plays.
 *
 * A seat gets its turn mail only while no connection of it is joined (as
 * a webhook, docs/protocol.md): the players here run the client only for
 * the assertions (`status`, `export`), between mails, never across a turn
 * changing hands.
 *
 * Readings of the specification where it leaves a choice (what a player
 * would expect):
 *   - confirming an address while the game awaits that seat sends the
 *     seat a mail with the game and its orders at once (whatever its
 *     subject calls it: the player should not wait for the next turn to
 *     learn it is theirs);
 *   - the answer to a reply need not be threaded under it, but when it has
 *     an In-Reply-To, that is the reply's Message-ID;
 *   - a reply to a confirmation mail confirms whatever its text says (an
 *     empty reply, or "Yes, that's me").
 *
 * Every wait has a deadline: mails are waited for by watching the maildir,
 * the server's state is asked with `warroom status`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mailbox.h"
#include "player.h"
#include "proc.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif
#ifndef WARROOM_CLIENT_PATH
#error "WARROOM_CLIENT_PATH must be defined by the build"
#endif

#define T WT_CLIENT_MS          /* ms for one client command or one mail */
#define MAX_REPLIES 80          /* replies one game may take (a turn takes ~20) */

#define MAIL_FROM "warroom@test.example"
#define REPLY_LOCAL "play"
#define REPLY_DOMAIN "test.example"
/* the orders section's first words (the specification ends them with a colon) */
#define ORDERS_SECTION "Reply with your orders, one per line, above the quoted text"

static struct wt_mailbox mb;
static struct wt_fixture fx;
static struct wt_home mta;      /* the HOME `warroom mail-in` runs in: no seat token */
static char mail_url[64];
static int server_up;           /* fx.s runs */

/* --- the fixture: the sink, then the server mailing through it ------------------------ */

static int start(void)
{
    if (wt_mailbox_start(&mb, NULL) < 0)
        return -1;
    /* The web port is named in the mails' link: a port the kernel gave
     * free a moment ago. */
    int web_port = 0;
    int lfd = wt_http_listen(&web_port);
    if (lfd < 0)
        return -1;
    close(lfd);
    static char web[32];
    snprintf(web, sizeof web, "127.0.0.1:%d", web_port);
    snprintf(mail_url, sizeof mail_url, "http://127.0.0.1:%d/", web_port);
    const char *args[] = { "--scenarios", WARROOM_SCENARIO_DIR, "--smtp", mb.url,
                           "--mail-from", MAIL_FROM, "--mail-reply",
                           REPLY_LOCAL "@" REPLY_DOMAIN, "--mail-url", mail_url,
                           "--mail-retry-ms", "100", "--web-listen", web,
                           /* every player of this file registers from 127.0.0.1:
                            * more than the default 10 an hour */
                           "--max-mails-per-address", "100",
                           /* the daily digest, every 1.5 s (test f) */
                           "--mail-digest-ms", "1500", NULL };
    const char *tmp = getenv("TMPDIR");
    snprintf(fx.root, sizeof fx.root, "%s/warroom-pbem-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(fx.root) == NULL || wt_server_start(&fx.s, args) < 0)
        return -1;
    server_up = 1;
    snprintf(fx.url, sizeof fx.url, "ws://127.0.0.1:%d/", fx.s.port);
    if (wt_home_init(&mta, fx.root, "mta") < 0)
        return -1;
    return 0;
}

static int setup(void **state)
{
    *state = NULL;
    if (start() < 0) {
        /* cmocka runs no teardown after a failed set-up */
        if (server_up)
            wt_server_stop(&fx.s, SIGTERM, 10000);
        wt_server_cleanup(&fx.s);
        if (fx.root[0])
            wt_remove_tree(fx.root);
        wt_mailbox_cleanup(&mb);
        return -1;
    }
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int status = wt_server_stop(&fx.s, SIGTERM, 10000);
    wt_server_cleanup(&fx.s);
    wt_remove_tree(fx.root);
    int sink = wt_mailbox_stop(&mb);
    wt_mailbox_cleanup(&mb);
    if (sink < 0 || !WIFEXITED(sink) || WEXITSTATUS(sink) != 0)
        fprintf(stderr, "the SMTP sink did not stop cleanly on SIGTERM\n");
    return (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && sink >= 0 &&
            WIFEXITED(sink) && WEXITSTATUS(sink) == 0) ? 0 : -1;
}

/* --- seats and their mails ------------------------------------------------------------- */

struct seat {
    const char *name;           /* "french", "allied" */
    int index;                  /* its index in the tags */
    char addr[128];
    struct player p;            /* its own HOME: set-up and the assertions' status */
    struct wt_mail *mail;       /* the last mail with a live tag, or NULL */
};

struct pbem {
    char game[32];
    struct seat seat[2];        /* 0 french, 1 allied */
};

/* The parts of a reply address play+GAME.SEAT.WHAT.MAC@test.example. */
struct tag {
    char addr[320];             /* the whole address */
    char game[32];
    int seat;
    char what[24];              /* a version, or "c" */
    char mac[32];
};

static void tag_of(const struct wt_mail *m, struct tag *t)
{
    const char *rt = wt_mail_header(m, "Reply-To");
    if (rt == NULL || wt_mail_address(rt, t->addr, sizeof t->addr) < 0)
        fail_msg("mail %d has no Reply-To", m->n);
    const char *plus = strchr(t->addr, '+'), *at = strrchr(t->addr, '@');
    if (strncmp(t->addr, REPLY_LOCAL "+", strlen(REPLY_LOCAL) + 1) != 0 || at == NULL ||
        strcmp(at + 1, REPLY_DOMAIN) != 0)
        fail_msg("mail %d: Reply-To '%s' is not " REPLY_LOCAL "+TAG@" REPLY_DOMAIN, m->n,
                 t->addr);
    char tag[256];
    snprintf(tag, sizeof tag, "%.*s", (int)(at - plus - 1), plus + 1);
    /* GAME.SEAT.WHAT.MAC: the game is g- and 12 hex, the mac 20 lowercase hex */
    char *f[4] = { NULL, NULL, NULL, NULL };
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(tag, ".", &save); tok && n < 4;
         tok = strtok_r(NULL, ".", &save))
        f[n++] = tok;
    if (n != 4 || strlen(f[0]) != 14 || strncmp(f[0], "g-", 2) != 0 || strlen(f[3]) != 20 ||
        strspn(f[3], "0123456789abcdef") != 20 || strspn(f[1], "0123456789") != strlen(f[1]) ||
        !(strcmp(f[2], "c") == 0 || strspn(f[2], "0123456789") == strlen(f[2])))
        fail_msg("mail %d: the tag of '%s' is not GAME.SEAT.WHAT.MAC", m->n, t->addr);
    snprintf(t->game, sizeof t->game, "%s", f[0]);
    t->seat = atoi(f[1]);
    snprintf(t->what, sizeof t->what, "%s", f[2]);
    snprintf(t->mac, sizeof t->mac, "%s", f[3]);
}

/* The next mail to s, with the headers every mail has; NULL fails. */
static struct wt_mail *next_mail(struct pbem *g, struct seat *s, const char *want)
{
    struct wt_mail *m = wt_mailbox_next(&mb, s->addr, T);
    if (m == NULL)
        fail_msg("%s (%s): no mail within %d ms, want %s (the maildir has %d messages)",
                 s->name, s->addr, T, want, wt_mailbox_count(&mb));
    char a[320];
    if (wt_mail_address(wt_mail_header(m, "From"), a, sizeof a) < 0 || strcmp(a, MAIL_FROM))
        fail_msg("mail %d: From is '%s'", m->n, wt_mail_header(m, "From"));
    const char *to = wt_mail_header(m, "To");
    if (to == NULL || !strstr(to, s->addr))
        fail_msg("mail %d to %s: To is '%s'", m->n, s->addr, to ? to : "(none)");
    char prefix[64];
    snprintf(prefix, sizeof prefix, "Warroom %s", g->game);
    const char *subject = wt_mail_header(m, "Subject");
    if (subject == NULL || strncmp(subject, prefix, strlen(prefix)) != 0)
        fail_msg("mail %d: Subject '%s' does not start with '%s'", m->n,
                 subject ? subject : "(none)", prefix);
    struct tag t;
    tag_of(m, &t);
    if (strcmp(t.game, g->game) != 0 || t.seat != s->index)
        fail_msg("mail %d to %s: its tag names game %s seat %d", m->n, s->name, t.game, t.seat);
    return m;
}

/* The mail is of kind (its subject "Warroom GAME: ..." holds what, e.g.
 * "your move", and the seat's name): fails otherwise. The specification
 * gives the subjects as "SEAT, your move", "your orders (SEAT)", "confirm
 * your address (SEAT)"; the words and the seat are what a player reads. */
static void expect_subject(const struct wt_mail *m, const char *game, const char *seat,
                           const char *what)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "Warroom %s: ", game);
    const char *subject = wt_mail_header(m, "Subject");
    if (subject == NULL || strncmp(subject, prefix, strlen(prefix)) != 0 ||
        !strstr(subject + strlen(prefix), what) || !strstr(subject + strlen(prefix), seat))
        fail_msg("mail %d: Subject '%s', want '%s' with '%s' and '%s'\n%s", m->n,
                 subject ? subject : "(none)", prefix, what, seat, m->text);
}

/* src into dst (cap bytes), cut to fit. */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* --- reading a mail's text ----------------------------------------------------------------- */

/* A line of the board's diagonal numbers: blanks and numbers, two at least
 * (as tests/integration/test_play_screen.c reads a screen). */
static int is_number_line(const char *line, size_t n)
{
    int numbers = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)line[i]) && line[i] != ' ')
            return 0;
        numbers += isdigit((unsigned char)line[i]) && (i == 0 || line[i - 1] == ' ');
    }
    return numbers >= 2;
}

/* A row of the board: a row name (one or two capitals, or "0"), two blanks. */
static int is_row_line(const char *line, size_t n)
{
    size_t k = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (line[0] == '0')
        k = 1;
    return k >= 1 && k <= 2 && k + 2 <= n && line[k] == ' ' && line[k + 1] == ' ';
}

/* Whitespace runs (line breaks too) made one blank: the panel may be
 * wrapped differently in a mail and in a terminal. Caller frees. */
static char *squeeze(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    size_t k = 0;
    for (; *s; s++) {
        if (isspace((unsigned char)*s)) {
            if (k > 0 && d[k - 1] != ' ')
                d[k++] = ' ';
        } else {
            d[k++] = *s;
        }
    }
    d[k] = '\0';
    return d;
}

/* The `e.g. "..."` examples of text, in order, their wrapped lines joined
 * (a line break and the blanks after it read as one blank). Returns how
 * many were found (at most max). */
static int examples(const char *text, char ex[][256], int max)
{
    int n = 0;
    for (const char *e = strstr(text, "e.g. \""); e && n < max; e = strstr(e, "e.g. \"")) {
        e += strlen("e.g. \"");
        const char *end = strchr(e, '"');
        if (end == NULL)
            break;
        size_t k = 0;
        for (const char *c = e; c < end && k + 1 < sizeof ex[n]; c++) {
            if (*c == '\n') {
                while (c + 1 < end && c[1] == ' ')
                    c++;
                ex[n][k++] = ' ';
            } else {
                ex[n][k++] = *c;
            }
        }
        ex[n][k] = '\0';
        n++;
        e = end;
    }
    return n;
}

/* The line of text that starts with prefix (blanks before it allowed), its
 * rest into out; 0, or -1 when there is none. */
static int line_after(const char *text, const char *prefix, char *out, size_t cap)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *s = l;
        while (*s == ' ')
            s++;
        if (strncmp(s, prefix, strlen(prefix)) == 0) {
            s += strlen(prefix);
            snprintf(out, cap, "%.*s", (int)strcspn(s, "\n"), s);
            return 0;
        }
    }
    return -1;
}

/* The game's state message as p sees it (a new reference). */
static json_t *status_of(struct player *p, const char *game)
{
    json_t *s = run_json(p, 0, "status", game, NULL);
    assert_non_null(json_object_get(s, "state"));
    return s;
}

static long long version_of(struct player *p, const char *game)
{
    json_t *s = status_of(p, game);
    long long v = json_integer_value(json_object_get(s, "version"));
    json_decref(s);
    return v;
}

/* A game mail of seat s (your move, or an answer): the first line names the
 * game, the ruleset, the seat and the tag's version; the board's number and
 * row lines; the seat's decision panel as `warroom status` shows it (the
 * game cannot have moved: it awaits this seat, or nobody acted since); the
 * orders section with examples when orders is set (absent otherwise); the
 * link; a board.svg attachment that is an SVG. */
static void check_game_mail(struct pbem *g, struct seat *s, const struct wt_mail *m, int orders)
{
    const char *text = m->text;
    struct tag t;
    tag_of(m, &t);
    /* the line naming the game: the first line of a turn mail, the first
     * after the lines about the orders in an answer */
    char first[512] = "";
    int named = 0;
    for (const char *l = text; *l && !named;) {
        size_t n = strcspn(l, "\n");
        snprintf(first, sizeof first, "%.*s", (int)n, l);
        l += n + (l[n] == '\n');
        if (!strstr(first, g->game))
            continue;
        int has_version = 0;
        for (const char *c = first; *c; c++)
            if (isdigit((unsigned char)*c) && (c == first || !isalnum((unsigned char)c[-1]))) {
                size_t k = strspn(c, "0123456789");
                has_version |= k == strlen(t.what) && strncmp(c, t.what, k) == 0;
                c += k - 1;
            }
        named = strstr(first, "waterloo") && strstr(first, s->name) && has_version;
    }
    if (!named)
        fail_msg("mail %d: no line names game %s, waterloo, %s and version %s:\n%s", m->n,
                 g->game, s->name, t.what, text);
    int numbers = 0, rows = 0;
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        numbers += is_number_line(l, n);
        rows += is_row_line(l, n);
        l += n + (l[n] == '\n');
    }
    if (numbers < 1 || rows < 3)
        fail_msg("mail %d: no board (%d number lines, %d row lines):\n%s", m->n, numbers, rows,
                 text);
    /* The decision panel: the one `warroom status` shows the seat now. */
    json_t *st = status_of(&s->p, g->game);
    long long v = json_integer_value(json_object_get(st, "version"));
    json_decref(st);
    if (strcmp(t.what, "c") == 0 || atoll(t.what) != v)
        fail_msg("mail %d: written at version %s, the game is at %lld", m->n, t.what, v);
    struct result r = run(&s->p, "status", g->game, NULL);
    char panel[2048];
    if (r.rc != 0 || line_after(r.out, "Your decision", panel, sizeof panel) < 0) {
        if (orders)
            fail_msg("%s: status shows no decision at version %lld:\n%s", s->name, v, r.out);
    } else {
        char want[2100];
        snprintf(want, sizeof want, "Your decision%s", panel);
        char *a = squeeze(text), *b = squeeze(want);
        if (!strstr(a, b))
            fail_msg("mail %d: the decision panel is not the seat's '%s':\n%s", m->n, b, text);
        free(a);
        free(b);
    }
    result_free(&r);
    if (orders) {
        /* the section, an order's synopsis in it, and examples (the
         * section's or the panel's) */
        const char *sec = strstr(text, ORDERS_SECTION);
        char ex[8][256];
        if (sec == NULL || !strstr(sec, "\n  ") || examples(text, ex, 8) == 0)
            fail_msg("mail %d: no orders section with synopses and examples:\n%s", m->n, text);
    } else if (strstr(text, ORDERS_SECTION)) {
        fail_msg("mail %d: an orders section, and the game does not await %s:\n%s", m->n,
                 s->name, text);
    }
    char link[256];
    snprintf(link, sizeof link, "%s", mail_url);
    if (!strstr(text, link))
        fail_msg("mail %d: no link to %s:\n%s", m->n, mail_url, text);
    const struct wt_mail_part *svg = wt_mail_attachment(m, "board.svg");
    if (svg == NULL || strcmp(svg->type, "image/svg+xml") != 0 ||
        (strncmp(svg->data, "<svg", 4) != 0 && strncmp(svg->data, "<?xml", 5) != 0) ||
        !strstr(svg->data, "</svg>"))
        fail_msg("mail %d: no board.svg of type image/svg+xml that is an SVG (%d parts%s%s)",
                 m->n, m->nparts, svg ? ", its type " : "", svg ? svg->type : "");
}

/* --- replying -------------------------------------------------------------------------- */

struct answer {
    int rc;
    char result[16];
    char game[32];
    const char *seat;           /* NULL when absent */
    char seat_buf[32];
    long long done, refused;
    char *out, *err;
};

static void answer_free(struct answer *a)
{
    free(a->out);
    free(a->err);
}

/* Pipe msg into `warroom --json mail-in` (the MTA's HOME, no token); the
 * server's answer. Fails unless it exits 0 with the mail_in answer. */
static struct answer pipe_json(const char *msg, size_t len)
{
    struct answer a;
    memset(&a, 0, sizeof a);
    a.rc = wt_mail_in(WARROOM_CLIENT_PATH, mta.env, fx.url, 1, msg, len, T, &a.out, &a.err);
    json_t *j = a.out ? json_loads(a.out, JSON_DISABLE_EOF_CHECK, NULL) : NULL;
    if (a.rc != 0 || j == NULL || strcmp(str(j, "type") ? str(j, "type") : "", "mail_in") ||
        str(j, "result") == NULL)
        fail_msg("warroom mail-in: exit %d, want 0 and a mail_in answer\nstdout: %s\n"
                 "stderr: %s\nthe message:\n%s", a.rc, a.out ? a.out : "", a.err ? a.err : "",
                 msg);
    snprintf(a.result, sizeof a.result, "%s", str(j, "result"));
    snprintf(a.game, sizeof a.game, "%s", str(j, "game") ? str(j, "game") : "");
    if (str(j, "seat")) {
        snprintf(a.seat_buf, sizeof a.seat_buf, "%s", str(j, "seat"));
        a.seat = a.seat_buf;
    }
    a.done = json_integer_value(json_object_get(j, "done"));
    a.refused = json_integer_value(json_object_get(j, "refused"));
    json_decref(j);
    return a;
}

/* s replies to its mail with lines (NULL-terminated); the message written
 * (caller frees; may be NULL) and its Message-ID. */
static struct answer reply(struct seat *s, const char *const *lines, char **msg_out,
                           size_t *len_out, char *msgid, size_t cap)
{
    assert_non_null(s->mail);
    size_t len = 0;
    char *msg = wt_mail_reply(&mb, s->mail, s->addr, lines, &len, msgid, cap);
    assert_non_null(msg);
    struct answer a = pipe_json(msg, len);
    if (msg_out) {
        *msg_out = msg;
        *len_out = len;
    } else {
        free(msg);
    }
    return a;
}

/* Whether m's In-Reply-To names the message id msgid ("<...>"). (The
 * specification does not ask the answer to be threaded under the reply; a
 * player's mail client threads it when it is, and an In-Reply-To naming
 * another message would be wrong.) */
static int threaded_under(const struct wt_mail *m, const char *msgid)
{
    char a[256], b[256];
    return wt_mail_address(wt_mail_header(m, "In-Reply-To"), a, sizeof a) == 0 &&
           wt_mail_address(msgid, b, sizeof b) == 0 && strcmp(a, b) == 0;
}

/* The answer mail to s for a reply of lines (one per line of the mail:
 * `done: LINE`, `refused: LINE`, `not tried: LINE`), threaded under the
 * reply msgid. Becomes s's mail. */
static struct wt_mail *answer_mail(struct pbem *g, struct seat *s, const char *msgid)
{
    struct wt_mail *m = next_mail(g, s, "the answer to its reply");
    expect_subject(m, g->game, s->name, "your orders");
    if (wt_mail_header(m, "In-Reply-To") != NULL && !threaded_under(m, msgid))
        fail_msg("mail %d (the answer): In-Reply-To '%s', want the reply's %s", m->n,
                 wt_mail_header(m, "In-Reply-To") ? wt_mail_header(m, "In-Reply-To") : "(none)",
                 msgid);
    wt_mail_free(s->mail);
    s->mail = m;
    return m;
}

/* The sentence after `refused: LINE` in an answer mail: its indented line(s)
 * joined, into out. 0 or -1. */
static int refusal_of(const char *text, const char *line, char *out, size_t cap)
{
    char head[1100];
    snprintf(head, sizeof head, "refused: %s\n", line);
    const char *p = strstr(text, head);
    if (p == NULL)
        return -1;
    p += strlen(head);
    size_t k = 0;
    out[0] = '\0';
    while (*p == ' ' || *p == '\t') {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, "\n");
        if (k > 0 && k + 1 < cap)
            out[k++] = ' ';
        for (size_t i = 0; i < n && k + 1 < cap; i++)
            out[k++] = p[i];
        out[k] = '\0';
        p += n + (p[n] == '\n');
    }
    return k > 0 ? 0 : -1;
}

/* --- a game set up by mail ------------------------------------------------------------- */

/* The code of a confirmation mail ("Code: XXXXXXXX"). */
static void code_of(const struct wt_mail *m, char *code, size_t cap)
{
    char rest[128];
    if (line_after(m->text, "Code: ", rest, sizeof rest) < 0)
        fail_msg("mail %d: no 'Code: ' line:\n%s", m->n, m->text);
    snprintf(code, cap, "%.*s", (int)strcspn(rest, " \t"), rest);
    assert_true(strlen(code) >= 6);
}

/* m is a confirmation mail to s: its subject, its text with the code, its
 * tag (what = c), no attachment. */
static void check_confirmation(struct pbem *g, struct seat *s, const struct wt_mail *m)
{
    expect_subject(m, g->game, s->name, "confirm your address");
    struct tag t;
    tag_of(m, &t);
    if (strcmp(t.what, "c") != 0)
        fail_msg("mail %d: a confirmation whose tag says '%s', not 'c'", m->n, t.what);
    if (!strcasestr(m->text, "reply to this mail"))
        fail_msg("mail %d: the confirmation does not say how to confirm:\n%s", m->n, m->text);
    char code[32];
    code_of(m, code, sizeof code);
    if (wt_mail_attachment(m, "board.svg") != NULL)
        fail_msg("mail %d: a confirmation with the board attached", m->n);
}

/* The next mail to s, its confirmation mail. */
static struct wt_mail *confirmation_mail(struct pbem *g, struct seat *s)
{
    struct wt_mail *m = next_mail(g, s, "the confirmation mail");
    check_confirmation(g, s, m);
    return m;
}

/* A new game of the small scenario, french by fr_addr, allied by al_addr
 * (claimed with --mail): both addresses pending, their confirmation mails
 * read into the seats' mail (the seats' indexes are read from their
 * tags). */
static void new_mail_game_with(struct pbem *g, const char *tag, const char *fr_addr,
                               const char *al_addr, const char *deadline)
{
    memset(g, 0, sizeof *g);
    static const char *const names[2] = { "french", "allied" };
    const char *addrs[2] = { fr_addr, al_addr };
    for (int i = 0; i < 2; i++) {
        char who[32];
        snprintf(who, sizeof who, "%s-%s", tag, names[i]);
        g->seat[i].name = names[i];
        g->seat[i].index = -1;
        snprintf(g->seat[i].addr, sizeof g->seat[i].addr, "%s", addrs[i]);
        player_init(&g->seat[i].p, &fx, who);
        g->seat[i].p.name = names[i];       /* player_init keeps the pointer */
    }
    json_t *c = deadline ? run_json(&g->seat[0].p, 0, "new", "--ruleset", "waterloo",
                                    "--scenario", "test/small", "--mail", fr_addr,
                                    "--deadline", deadline, NULL)
                         : run_json(&g->seat[0].p, 0, "new", "--ruleset", "waterloo",
                                    "--scenario", "test/small", "--mail", fr_addr, NULL);
    assert_string_equal(str(c, "type"), "created");
    assert_string_equal(str(c, "seat"), "french");
    snprintf(g->game, sizeof g->game, "%s", str(c, "game"));
    json_t *cl = run_json(&g->seat[1].p, 0, "claim", "--mail", al_addr,
                          str(json_object_get(c, "invites"), "allied"), NULL);
    assert_string_equal(str(cl, "seat"), "allied");
    json_decref(cl);
    json_decref(c);
    for (int i = 0; i < 2; i++) {
        struct wt_mail *m = wt_mailbox_next(&mb, addrs[i], T);
        if (m == NULL)
            fail_msg("%s: no confirmation mail within %d ms", addrs[i], T);
        struct tag t;
        tag_of(m, &t);
        g->seat[i].index = t.seat;
        check_confirmation(g, &g->seat[i], m);
        g->seat[i].mail = m;
    }
    if (g->seat[0].index == g->seat[1].index)
        fail_msg("both seats' tags name seat %d", g->seat[0].index);
}

static void new_mail_game(struct pbem *g, const char *tag, const char *fr_addr,
                          const char *al_addr)
{
    new_mail_game_with(g, tag, fr_addr, al_addr, NULL);
}

/* Seat s confirms by replying to its confirmation mail (with lines, maybe
 * none): the answer is `confirmed`, for its game and seat. */
static void confirm_by_reply(struct pbem *g, struct seat *s, const char *const *lines)
{
    char id[128];
    struct answer a = reply(s, lines, NULL, NULL, id, sizeof id);
    if (strcmp(a.result, "confirmed") != 0 || strcmp(a.game, g->game) != 0 || a.seat == NULL ||
        strcmp(a.seat, s->name) != 0)
        fail_msg("%s's confirmation: %s", s->name, a.out);
    answer_free(&a);
}

/* Does the game's record hold a resolved battle (a resolve with its die)? */
static int battle_fought(struct seat *s, const char *game)
{
    struct result r = run(&s->p, "export", game, NULL);
    assert_int_equal(r.rc, 0);
    int fought = 0;
    for (char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        json_t *j = json_loadb(l, strcspn(l, "\n"), 0, NULL);
        json_t *cmd = json_object_get(j, "cmd");
        if (str(cmd, "type") && strcmp(str(cmd, "type"), "resolve") == 0 &&
            json_array_size(json_object_get(j, "rolls")) > 0)
            fought = 1;
        json_decref(j);
    }
    result_free(&r);
    return fought;
}

/* What the game awaits of s, from its mail's panel: "setup", "move",
 * "combat", ... into kind. */
static void kind_of(const struct wt_mail *m, char *kind, size_t cap)
{
    char rest[256];
    kind[0] = '\0';
    if (line_after(m->text, "Your decision (", rest, sizeof rest) == 0)
        snprintf(kind, cap, "%.*s", (int)strcspn(rest, ")"), rest);
}

/* Moves that bring the French into contact in the small scenario (the
 * units start close: tests/integration/test_play_screen.c plays them). */
static const char *const contact_moves[] = {
    "move fr-jerome J-40 I-40",
    "move fr-foy J-40 J-39 I-39",
    "move fr-pire J-41 I-41",
};

/* The orders s could send now, best first, all read from its mail: in a
 * set-up, its end; in a move, a contact move of a unit the mail lists as
 * not moved yet, then the phase's end; in a combat, a resolve when a
 * declared battle waits, the panel's attack when one is owed, else the
 * phase's end; in any other decision (a retreat, losses to choose) the
 * panel's examples first. Then every example of the mail, then "end". */
static int candidates(const struct seat *s, char out[][256], int max)
{
    const struct wt_mail *m = s->mail;
    char kind[64], rest[1024];
    int n = 0;
    kind_of(m, kind, sizeof kind);
    int owed = strstr(m->text, "Must still attack") != NULL;
    int declared = strstr(m->text, "die 1-6 gives") != NULL;
    if (strcmp(kind, "setup") == 0)
        snprintf(out[n++], 256, "endsetup");
    if (strcmp(kind, "move") == 0) {
        if (line_after(m->text, "Not moved yet: ", rest, sizeof rest) == 0)
            for (size_t i = 0; i < sizeof contact_moves / sizeof contact_moves[0]; i++) {
                char unit[64];
                snprintf(unit, sizeof unit, "%.*s", (int)strcspn(contact_moves[i] + 5, " "),
                         contact_moves[i] + 5);
                if (strstr(rest, unit))
                    copy(out[n++], 256, contact_moves[i]);
            }
        snprintf(out[n++], 256, "end");
    }
    if (strcmp(kind, "combat") == 0) {
        if (declared)
            snprintf(out[n++], 256, "resolve");
        if (!owed && !declared)
            snprintf(out[n++], 256, "end");
    }
    char ex[16][256];
    int k = examples(m->text, ex, 16);
    for (int i = 0; i < k && n < max; i++)
        copy(out[n++], 256, ex[i]);
    if (n < max)
        snprintf(out[n++], 256, "end");
    return n;
}

/* The next "your move" mail to s: a mail saying its address is confirmed
 * (which the server may send on confirmation, with the game as it stands)
 * is passed over. */
static struct wt_mail *turn_mail(struct pbem *g, struct seat *s)
{
    for (int i = 0; i < 3; i++) {
        struct wt_mail *m = next_mail(g, s, "its turn mail");
        const char *subject = wt_mail_header(m, "Subject");
        if (i < 2 && subject && strstr(subject, "confirmed")) {
            wt_mail_free(m);
            continue;
        }
        expect_subject(m, g->game, s->name, "your move");
        return m;
    }
    return NULL;
}

/* Play the game by mail from seat cur (whose mail awaits its orders) until
 * done(g) says so (asked before every reply) or MAX_REPLIES. Each reply is
 * one order; a refused order is followed by the next candidate; an answer
 * without the orders section hands the game to the other seat, whose turn
 * mail is read. Returns the seat whose mail awaits orders at the end. */
static struct seat *play(struct pbem *g, struct seat *cur, int (*done)(struct pbem *g,
                                                                        struct seat *cur))
{
    int tries = 0;
    char tried[MAX_REPLIES][256];
    int ntried = 0;
    long long tried_at = -1;
    for (int replies = 0; replies < MAX_REPLIES; replies++) {
        if (done(g, cur))
            return cur;
        struct tag t;
        tag_of(cur->mail, &t);
        long long v = atoll(t.what);
        if (v != tried_at) {
            ntried = 0;
            tried_at = v;
        }
        char cand[24][256];
        int nc = candidates(cur, cand, 24);
        const char *order = NULL;
        for (int i = 0; i < nc && order == NULL; i++) {
            int seen = 0;
            for (int k = 0; k < ntried; k++)
                seen |= strcmp(tried[k], cand[i]) == 0;
            if (!seen)
                order = cand[i];
        }
        if (order == NULL)
            fail_msg("%s: every order its mail offers was refused at version %lld:\n%s",
                     cur->name, v, cur->mail->text);
        copy(tried[ntried++], 256, order);
        const char *lines[] = { order, NULL };
        char id[128];
        struct answer a = reply(cur, lines, NULL, NULL, id, sizeof id);
        if (strcmp(a.game, g->game) != 0 || a.seat == NULL || strcmp(a.seat, cur->name) != 0)
            fail_msg("%s's '%s': the answer names game %s seat %s", cur->name, order, a.game,
                     a.seat ? a.seat : "(none)");
        struct wt_mail *m = answer_mail(g, cur, id);
        char line[1100];
        if (strcmp(a.result, "applied") == 0) {
            assert_int_equal(a.done, 1);
            snprintf(line, sizeof line, "done: %.256s\n", order);
            if (!strstr(m->text, line))
                fail_msg("mail %d: no '%s' in the answer:\n%s", m->n, order, m->text);
        } else if (strcmp(a.result, "refused") == 0) {
            assert_int_equal(a.refused, 1);
            snprintf(line, sizeof line, "refused: %.256s\n", order);
            if (!strstr(m->text, line))
                fail_msg("mail %d: no '%s' in the answer:\n%s", m->n, line, m->text);
            tries++;
        } else {
            fail_msg("%s's '%s': result %s", cur->name, order, a.result);
        }
        answer_free(&a);
        int awaits = strstr(m->text, ORDERS_SECTION) != NULL;
        check_game_mail(g, cur, m, awaits);
        if (!awaits) {
            struct seat *other = cur == &g->seat[0] ? &g->seat[1] : &g->seat[0];
            struct wt_mail *turn = turn_mail(g, other);
            wt_mail_free(other->mail);
            other->mail = turn;
            check_game_mail(g, other, turn, 1);
            cur = other;
        }
    }
    fail_msg("the game did not get there in %d replies (%d refused)", MAX_REPLIES, tries);
    return cur;
}

/* A game of the small scenario, both seats confirmed by reply, the French
 * turn mail read: the seat awaited (french). */
static struct seat *start_game(struct pbem *g, const char *tag)
{
    char fr[128], al[128];
    snprintf(fr, sizeof fr, "%s-french@players.test", tag);
    snprintf(al, sizeof al, "%s-allied@players.test", tag);
    new_mail_game(g, tag, fr, al);
    static const char *const yes[] = { "Yes, that's me.", NULL };
    confirm_by_reply(g, &g->seat[0], NULL);
    confirm_by_reply(g, &g->seat[1], yes);
    /* The game awaits the French (set-up): confirmed, their turn mail. */
    struct wt_mail *m = next_mail(g, &g->seat[0], "the turn mail after the confirmation");
    expect_subject(m, g->game, "french", "");
    wt_mail_free(g->seat[0].mail);
    g->seat[0].mail = m;
    check_game_mail(g, &g->seat[0], m, 1);
    wt_mail_free(g->seat[1].mail);
    g->seat[1].mail = NULL;
    return &g->seat[0];
}

static void end_game(struct pbem *g)
{
    for (int i = 0; i < 2; i++) {
        wt_mail_free(g->seat[i].mail);
        g->seat[i].mail = NULL;
    }
}

/* --- a. a turn with a battle, by mail alone -------------------------------------------------- */

static int turn_with_battle_over(struct pbem *g, struct seat *cur)
{
    (void)cur;
    json_t *s = status_of(&g->seat[0].p, g->game);
    long long turn = json_integer_value(json_object_get(json_object_get(s, "state"), "turn"));
    json_decref(s);
    return turn >= 2 && battle_fought(&g->seat[0], g->game);
}

static void test_a_turn_with_a_battle_by_mail(void **state)
{
    (void)state;
    struct pbem g;
    struct seat *cur = start_game(&g, "a");
    long long v0 = version_of(&g.seat[0].p, g.game);
    play(&g, cur, turn_with_battle_over);
    /* The record says what the mails did: a resolved battle, a new turn,
     * every command of it sent by a reply. */
    json_t *s = status_of(&g.seat[1].p, g.game);
    json_t *st = json_object_get(s, "state");
    assert_true(json_integer_value(json_object_get(st, "turn")) >= 2);
    assert_true(json_integer_value(json_object_get(s, "version")) > v0 + 5);
    assert_true(battle_fought(&g.seat[1], g.game));
    json_decref(s);
    end_game(&g);
}

/* --- b. an illegal order by reply ---------------------------------------------------------- */

static int french_must_attack(struct pbem *g, struct seat *cur)
{
    char kind[64];
    kind_of(cur->mail, kind, sizeof kind);
    return cur == &g->seat[0] && strcmp(kind, "combat") == 0 &&
           strstr(cur->mail->text, "Must still attack") != NULL &&
           !strstr(cur->mail->text, "die 1-6 gives");
}

static void test_b_illegal_order_refused(void **state)
{
    (void)state;
    struct pbem g;
    struct seat *cur = start_game(&g, "b");
    cur = play(&g, cur, french_must_attack);
    struct seat *fr = &g.seat[0];
    assert_ptr_equal(cur, fr);
    /* An attack on a unit far away: the rules refuse it (not in the zone). */
    const char *illegal = "attack fr-jerome vs aa-wellington";
    json_t *before = status_of(&fr->p, g.game);
    /* What the rules say of it in this position: the client checks an
     * order with the same rules library before sending it (and sends
     * nothing when it is refused). */
    json_t *local = run_json(&fr->p, 1, "do", g.game, illegal, NULL);
    assert_string_equal(str(local, "type"), "error");
    char want[1200];
    snprintf(want, sizeof want, "%s (%s)", str(local, "message"), str(local, "code"));
    json_decref(local);

    const char *one[] = { illegal, NULL };
    char id[128];
    struct answer a = reply(fr, one, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "refused");
    assert_int_equal(a.done, 0);
    assert_int_equal(a.refused, 1);
    answer_free(&a);
    struct wt_mail *m = answer_mail(&g, fr, id);
    char got[1200];
    if (refusal_of(m->text, illegal, got, sizeof got) < 0)
        fail_msg("mail %d: no 'refused: %s' with its reason:\n%s", m->n, illegal, m->text);
    if (strcmp(got, want) != 0)
        fail_msg("mail %d: the refusal says '%s'; the rules say '%s'", m->n, got, want);
    /* The game awaits the same decision: the orders section is there. */
    check_game_mail(&g, fr, m, 1);
    json_t *after = status_of(&fr->p, g.game);
    assert_int_equal(json_integer_value(json_object_get(after, "version")),
                     json_integer_value(json_object_get(before, "version")));
    if (!json_equal(json_object_get(before, "state"), json_object_get(after, "state")))
        fail_msg("the refused order changed the state");
    json_decref(after);

    /* Three lines, the second illegal: the first stands, the third is not
     * tried. */
    char ex[8][256];
    int k = examples(m->text, ex, 8);
    const char *attack = NULL;
    for (int i = 0; i < k && !attack; i++)
        if (strncmp(ex[i], "attack ", 7) == 0)
            attack = ex[i];
    if (attack == NULL)
        fail_msg("mail %d: no attack among the examples:\n%s", m->n, m->text);
    const char *three[] = { attack, illegal, "end", NULL };
    a = reply(fr, three, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "refused");
    assert_int_equal(a.done, 1);
    assert_int_equal(a.refused, 1);
    answer_free(&a);
    m = answer_mail(&g, fr, id);
    char line[1100];
    snprintf(line, sizeof line, "done: %.256s\n", attack);
    if (!strstr(m->text, line) || !strstr(m->text, "not tried: end\n") ||
        refusal_of(m->text, illegal, got, sizeof got) < 0)
        fail_msg("mail %d: want 'done: %s', 'refused: %s' and its reason, 'not tried: end':\n%s",
                 m->n, attack, illegal, m->text);
    after = status_of(&fr->p, g.game);
    assert_int_equal(json_integer_value(json_object_get(after, "version")),
                     json_integer_value(json_object_get(before, "version")) + 1);
    json_t *battles = json_object_get(json_object_get(after, "state"), "battles");
    assert_true(json_array_size(battles) >
                json_array_size(json_object_get(json_object_get(before, "state"), "battles")));
    json_decref(after);
    json_decref(before);
    end_game(&g);
}

/* --- c. forged and re-sent replies ------------------------------------------------------------ */

/* Pipe msg into plain `warroom mail-in`: it must print `ignored` and exit 0. */
static void expect_ignored(const char *msg, size_t len, const char *what)
{
    char *out = NULL, *err = NULL;
    int rc = wt_mail_in(WARROOM_CLIENT_PATH, mta.env, fx.url, 0, msg, len, T, &out, &err);
    if (rc != 0 || out == NULL || strncmp(out, "ignored", 7) != 0)
        fail_msg("%s: exit %d, want 0 and 'ignored'\nstdout: %s\nstderr: %s", what, rc,
                 out ? out : "", err ? err : "");
    free(out);
    free(err);
}

static int french_moves(struct pbem *g, struct seat *cur)
{
    char kind[64];
    kind_of(cur->mail, kind, sizeof kind);
    return cur == &g->seat[0] && strcmp(kind, "move") == 0;
}

static void test_c_forged_and_resent_replies(void **state)
{
    (void)state;
    struct pbem g, other;
    struct seat *cur = start_game(&g, "c");
    cur = play(&g, cur, french_moves);
    struct seat *fr = &g.seat[0];
    assert_ptr_equal(cur, fr);
    /* Another game with addresses, for its id. */
    new_mail_game(&other, "c2", "c2-french@players.test", "c2-allied@players.test");

    /* A legal reply, applied; kept to be sent again. */
    const char *first[] = { contact_moves[0], NULL };
    char *applied = NULL;
    size_t applied_len = 0;
    char id[128];
    struct answer a = reply(fr, first, &applied, &applied_len, id, sizeof id);
    assert_string_equal(a.result, "applied");
    answer_free(&a);
    answer_mail(&g, fr, id);
    long long v = version_of(&fr->p, g.game);
    json_t *before = status_of(&fr->p, g.game);
    int mark = wt_mailbox_count(&mb);

    /* Forged: the seat's own From and a live tag changed. */
    struct tag t;
    tag_of(fr->mail, &t);
    const char *second[] = { contact_moves[1], NULL };
    struct {
        const char *what;
        char to[400];
    } forged[3];
    /* 1: a wrong mac (its last digit changed) */
    char mac[32];
    snprintf(mac, sizeof mac, "%s", t.mac);
    mac[19] = mac[19] == '0' ? '1' : '0';
    forged[0].what = "a tag with a wrong mac";
    snprintf(forged[0].to, sizeof forged[0].to, REPLY_LOCAL "+%s.%d.%s.%s@" REPLY_DOMAIN,
             t.game, t.seat, t.what, mac);
    /* 2: the other seat's index, the mac unchanged */
    forged[1].what = "a tag with the other seat's index";
    snprintf(forged[1].to, sizeof forged[1].to, REPLY_LOCAL "+%s.%d.%s.%s@" REPLY_DOMAIN,
             t.game, g.seat[1].index, t.what, t.mac);
    /* 3: another game's id, the mac unchanged */
    forged[2].what = "a tag with another game's id";
    snprintf(forged[2].to, sizeof forged[2].to, REPLY_LOCAL "+%s.%d.%s.%s@" REPLY_DOMAIN,
             other.game, t.seat, t.what, t.mac);
    for (int i = 0; i < 3; i++) {
        size_t len = 0;
        char *msg = wt_mail_reply_to(&mb, fr->mail, fr->addr, forged[i].to, second, &len, NULL,
                                     0);
        assert_non_null(msg);
        expect_ignored(msg, len, forged[i].what);
        free(msg);
        if (version_of(&fr->p, g.game) != v)
            fail_msg("%s changed the game's version", forged[i].what);
    }
    /* Re-sent: the very message applied above, again (its tag is stale). */
    expect_ignored(applied, applied_len, "the applied reply sent again");
    free(applied);
    json_t *after = status_of(&fr->p, g.game);
    assert_int_equal(json_integer_value(json_object_get(after, "version")), v);
    if (!json_equal(json_object_get(before, "state"), json_object_get(after, "state")))
        fail_msg("an ignored mail changed the state");
    json_decref(after);
    json_decref(before);

    /* No mail for them: the next mail to anyone after them is the answer
     * to this legal reply (or the turn mail it causes). */
    a = reply(fr, second, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "applied");
    answer_free(&a);
    struct wt_mail *m = answer_mail(&g, fr, id);
    char line[300];
    snprintf(line, sizeof line, "done: %s\n", contact_moves[1]);
    if (!strstr(m->text, line))
        fail_msg("mail %d: the next mail to %s is not the answer to '%s':\n%s", m->n, fr->addr,
                 contact_moves[1], m->text);
    assert_int_equal(version_of(&fr->p, g.game), v + 1);
    int last = wt_mailbox_count(&mb);
    for (int n = mark + 1; n <= last; n++) {
        struct wt_mail *x = wt_mailbox_read(&mb, n);
        assert_non_null(x);
        const char *subject = wt_mail_header(x, "Subject");
        int ok = (subject && strstr(subject, "your orders") && strstr(x->text, line) &&
                  (wt_mail_header(x, "In-Reply-To") == NULL || threaded_under(x, id))) ||
                 (subject && strstr(subject, "your move") && strstr(subject, "allied"));
        if (!ok)
            fail_msg("mail %d was sent after the ignored ones, before the legal reply's answer:"
                     "\n%s", n, x->raw);
        wt_mail_free(x);
    }
    assert_int_equal(wt_mailbox_count_to(&mb, fr->addr, mark), 1);
    /* the other game's seats got nothing either but their confirmations */
    assert_int_equal(wt_mailbox_count_to(&mb, "c2-french@players.test", mark), 0);
    end_game(&other);
    end_game(&g);
}

/* --- d. confirmation, and removing the address ------------------------------------------------- */

/* The seat's notify, answered ok with its mail status (or an error). */
static json_t *notify(struct seat *s, const char *game, int want_rc, const char *a1,
                      const char *a2)
{
    return run_json(&s->p, want_rc, "notify", game, a1, a2, NULL);
}

/* Neither seat's state (each as its holder sees it) holds an address; the
 * seat's mail status is want (as notify answers say it) wherever its own
 * state says it. (The play-by-email specification put it in the seat's
 * own state as server.mail; docs/protocol.md says only the answers carry
 * it, and the server does so: a state without it passes, one with another
 * word fails.) */
static void expect_mail_state(struct pbem *g, struct seat *s, const char *want)
{
    for (int i = 0; i < 2; i++) {
        json_t *st = status_of(&g->seat[i].p, g->game);
        char *dump = json_dumps(st, JSON_COMPACT);
        for (int k = 0; k < 2; k++)
            if (strstr(dump, g->seat[k].addr) || strstr(dump, "@players.test"))
                fail_msg("%s's state holds an address:\n%s", g->seat[i].name, dump);
        free(dump);
        const char *mail = str(json_object_get(json_object_get(st, "state"), "server"), "mail");
        if (&g->seat[i] == s && mail != NULL && strcmp(mail, want) != 0)
            fail_msg("%s's state says server.mail %s, want %s", s->name, mail, want);
        json_decref(st);
    }
}

/* The seat acts with `warroom do` (its token) until the game awaits the
 * other seat. */
static void do_until_other(struct pbem *g, struct seat *s)
{
    for (int i = 0; i < 10; i++) {
        json_t *st = status_of(&s->p, g->game);
        json_t *aw = json_object_get(json_object_get(json_object_get(st, "state"), "server"),
                                     "awaiting");
        int mine = json_object_get(aw, s->name) != NULL;
        const char *what = str(aw, s->name);
        const char *order = what && strcmp(what, "setup") == 0 ? "endsetup" : "end";
        json_decref(st);        /* what is gone with it */
        if (!mine)
            return;
        EXPECT(&s->p, 0, "accepted", "do", g->game, order);
    }
    fail_msg("%s: the game still awaits it after 10 orders", s->name);
}

static void test_d_confirmation_and_removal(void **state)
{
    (void)state;
    struct pbem g;
    new_mail_game(&g, "d", "d-french@players.test", "d-allied@players.test");
    struct seat *fr = &g.seat[0], *al = &g.seat[1];
    expect_mail_state(&g, fr, "pending");
    expect_mail_state(&g, al, "pending");

    /* A wrong code is refused; the right one confirms, and the game,
     * which awaits the French, mails them. */
    char code[32], wrong[32];
    code_of(fr->mail, code, sizeof code);
    snprintf(wrong, sizeof wrong, "%s", code);
    wrong[0] = toupper((unsigned char)wrong[0]) == 'A' ? 'B' : 'A';  /* case is ignored */
    json_t *e = notify(fr, g.game, 1, "--confirm", wrong);
    if (!str(e, "code") || strcmp(str(e, "code"), "bad_code") != 0)
        fail_msg("a wrong code: %s", json_dumps(e, JSON_COMPACT));
    json_decref(e);
    expect_mail_state(&g, fr, "pending");
    json_t *ok = notify(fr, g.game, 0, "--confirm", code);
    assert_string_equal(str(ok, "type"), "ok");
    assert_string_equal(str(ok, "mail"), "confirmed");
    json_decref(ok);
    expect_mail_state(&g, fr, "confirmed");
    struct wt_mail *m = next_mail(&g, fr, "the turn mail after the confirmation");
    expect_subject(m, g.game, "french", "");
    check_game_mail(&g, fr, m, 1);
    wt_mail_free(fr->mail);
    fr->mail = m;

    /* The French end their set-up by mail: the game awaits the allied
     * seat, whose address is pending: no mail. The allied player plays by
     * its token; the French get their turn mail, and by then the allied
     * address has had its confirmation and nothing else. */
    int mark = wt_mailbox_count(&mb);
    const char *endsetup[] = { "endsetup", NULL };
    char id[128];
    struct answer a = reply(fr, endsetup, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "applied");
    answer_free(&a);
    m = answer_mail(&g, fr, id);
    assert_null(strstr(m->text, ORDERS_SECTION));
    do_until_other(&g, al);
    m = next_mail(&g, fr, "its turn mail after the allied set-up");
    expect_subject(m, g.game, "french", "your move");
    wt_mail_free(fr->mail);
    fr->mail = m;
    if (wt_mailbox_count_to(&mb, al->addr, mark) != 0)
        fail_msg("a mail went to the pending address %s", al->addr);

    /* The allied seat confirms by reply; when the game comes to it, its
     * turn mail comes. */
    confirm_by_reply(&g, al, NULL);
    expect_mail_state(&g, al, "confirmed");
    for (int i = 0; i < 10 && strstr(fr->mail->text, ORDERS_SECTION); i++) {
        const char *end[] = { "end", NULL };
        a = reply(fr, end, NULL, NULL, id, sizeof id);
        assert_string_equal(a.result, "applied");
        answer_free(&a);
        answer_mail(&g, fr, id);
    }
    assert_null(strstr(fr->mail->text, ORDERS_SECTION));
    m = turn_mail(&g, al);
    wt_mail_free(al->mail);
    al->mail = m;
    long long v = version_of(&al->p, g.game);

    /* The allied player removes the address: the tag of the mail it holds
     * (of the game's version still) is ignored from now on. */
    json_t *none = notify(al, g.game, 0, "--no-mail", NULL);
    assert_string_equal(str(none, "mail"), "none");
    json_decref(none);
    expect_mail_state(&g, al, "none");
    const char *end[] = { "end", NULL };
    size_t len = 0;
    char *msg = wt_mail_reply(&mb, al->mail, al->addr, end, &len, NULL, 0);
    expect_ignored(msg, len, "a reply with the tag of a removed address");
    free(msg);
    assert_int_equal(version_of(&al->p, g.game), v);

    /* No more mails to it: the game comes back to it, and goes on. */
    mark = wt_mailbox_count(&mb);
    do_until_other(&g, al);
    m = next_mail(&g, fr, "its turn mail");
    wt_mail_free(fr->mail);
    fr->mail = m;
    for (int i = 0; i < 10 && strstr(fr->mail->text, ORDERS_SECTION); i++) {
        a = reply(fr, end, NULL, NULL, id, sizeof id);
        assert_string_equal(a.result, "applied");
        answer_free(&a);
        answer_mail(&g, fr, id);
    }
    assert_null(strstr(fr->mail->text, ORDERS_SECTION));
    do_until_other(&g, al);
    m = next_mail(&g, fr, "its turn mail after the allied turn by token");
    wt_mail_free(fr->mail);
    fr->mail = m;
    if (wt_mailbox_count_to(&mb, al->addr, mark) != 0)
        fail_msg("a mail went to %s after it was removed", al->addr);

    /* A new address: pending again, with a new confirmation; the old tags
     * stay dead. */
    json_t *again = notify(al, g.game, 0, "--mail", "d-allied-2@players.test");
    assert_string_equal(str(again, "mail"), "pending");
    json_decref(again);
    struct seat al2 = *al;
    snprintf(al2.addr, sizeof al2.addr, "d-allied-2@players.test");
    al2.mail = confirmation_mail(&g, &al2);
    msg = wt_mail_reply(&mb, al->mail, al->addr, end, &len, NULL, 0);
    expect_ignored(msg, len, "a reply with the tag of a replaced address");
    free(msg);
    wt_mail_free(al2.mail);
    end_game(&g);
}

/* --- mail-in's own refusals ------------------------------------------------------------------- */

/* Not a message: EX_DATAERR (65), the server not reached. An unreachable
 * server: EX_TEMPFAIL (75), so the MTA tries again later. */
static void test_mail_in_exit_codes(void **state)
{
    (void)state;
    static const char junk[] = "this is not a mail message at all";
    char *out = NULL, *err = NULL;
    int rc = wt_mail_in(WARROOM_CLIENT_PATH, mta.env, fx.url, 0, junk, sizeof junk - 1, T,
                        &out, &err);
    if (rc != 65)
        fail_msg("junk: exit %d, want 65\nstdout: %s\nstderr: %s", rc, out, err);
    free(out);
    free(err);
    /* a message to a tag, with nobody listening at the server's address */
    int port = 0;
    int lfd = wt_http_listen(&port);
    assert_true(lfd >= 0);
    close(lfd);
    char url[64];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/", port);
    static const char msg[] =
        "From: someone@players.test\r\nTo: " REPLY_LOCAL "+g-0123456789ab.0.1."
        "0123456789abcdef0123@" REPLY_DOMAIN "\r\nSubject: Re: x\r\nMessage-ID: <x@y>\r\n"
        "\r\nend\r\n";
    rc = wt_mail_in(WARROOM_CLIENT_PATH, mta.env, url, 0, msg, sizeof msg - 1, T, &out, &err);
    if (rc != 75)
        fail_msg("no server: exit %d, want 75\nstdout: %s\nstderr: %s", rc, out, err);
    free(out);
    free(err);
    /* and the same message to the running server: answered, ignored */
    expect_ignored(msg, sizeof msg - 1, "a tag nobody made");
}

/* --- f. deadlines, the end, the digest ------------------------------------------------- */

/* The next mail to s: its subject holds what (fails otherwise). */
static struct wt_mail *mail_about(struct pbem *g, struct seat *s, const char *what)
{
    struct wt_mail *m = next_mail(g, s, what);
    expect_subject(m, g->game, s->name, what);
    return m;
}

static void test_f_deadlines_end_and_digest(void **state)
{
    (void)state;
    /* A game with 10 s per decision: the French, awaited and silent, are
     * reminded (at 80% of the time), then forfeit; the Allies hear the
     * game is over. Mails only: nobody acts. */
    struct pbem g;
    new_mail_game_with(&g, "f", "f-french@players.test", "f-allied@players.test", "10");
    confirm_by_reply(&g, &g.seat[0], NULL);
    confirm_by_reply(&g, &g.seat[1], NULL);
    wt_mail_free(mail_about(&g, &g.seat[0], "your address is confirmed"));
    wt_mail_free(mail_about(&g, &g.seat[1], "your address is confirmed"));
    struct wt_mail *m = mail_about(&g, &g.seat[0], "your time is running out");
    if (!strstr(m->text, "Your decision is due within"))
        fail_msg("mail %d (the reminder) does not say when the decision is due:\n%s", m->n,
                 m->text);
    check_game_mail(&g, &g.seat[0], m, 1);
    wt_mail_free(m);
    m = mail_about(&g, &g.seat[0], "your time ran out");
    if (!strstr(m->text, "Your time ran out: french: no decision"))
        fail_msg("mail %d (the forfeit) does not give the reason:\n%s", m->n, m->text);
    wt_mail_free(m);
    m = mail_about(&g, &g.seat[1], "the game is over");
    if (!strstr(m->text, "The game is over: french forfeited on time."))
        fail_msg("mail %d (the end) does not say how it ended:\n%s", m->n, m->text);
    wt_mail_free(m);
    json_t *st = status_of(&g.seat[1].p, g.game);
    assert_string_equal(str(st, "status"), "finished");
    json_decref(st);
    end_game(&g);

    /* A seat on the digest gets no turn mail when the game awaits it, and
     * the digest's mail instead (every 1.5 s here, a day at
     * --mail-digest-hour otherwise); its reply plays as any. */
    struct seat *cur = start_game(&g, "f2");
    wt_mail_free(mail_about(&g, &g.seat[1], "your address is confirmed"));
    json_decref(notify(&g.seat[1], g.game, 0, "--digest", NULL));
    char id[128];
    static const char *const endsetup[] = { "endsetup", NULL };
    struct answer a = reply(cur, endsetup, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "applied");
    answer_free(&a);
    wt_mail_free(answer_mail(&g, cur, id));
    cur->mail = NULL;
    m = next_mail(&g, &g.seat[1], "the digest's mail");
    expect_subject(m, g.game, "allied", "daily digest");
    check_game_mail(&g, &g.seat[1], m, 1);
    g.seat[1].mail = m;
    a = reply(&g.seat[1], endsetup, NULL, NULL, id, sizeof id);
    assert_string_equal(a.result, "applied");
    answer_free(&a);
    /* The digest comes every 1.5 s: on a slow machine (a sanitizer, a
     * loaded store) another may have been made before the reply was
     * applied, about the version the reply answered. It comes before the
     * answer; never one about a later version. */
    struct tag replied, late;
    tag_of(g.seat[1].mail, &replied);
    m = next_mail(&g, &g.seat[1], "the answer to its reply");
    while (strstr(wt_mail_header(m, "Subject"), "daily digest")) {
        tag_of(m, &late);
        if (strcmp(late.what, replied.what) != 0)
            fail_msg("mail %d: a digest about version %s after the reply to version %s",
                     m->n, late.what, replied.what);
        wt_mail_free(m);
        m = next_mail(&g, &g.seat[1], "the answer to its reply");
    }
    expect_subject(m, g.game, "allied", "your orders");
    wt_mail_free(m);
    wt_mail_free(g.seat[1].mail);
    g.seat[1].mail = NULL;
    end_game(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_turn_with_a_battle_by_mail),
        cmocka_unit_test(test_b_illegal_order_refused),
        cmocka_unit_test(test_c_forged_and_resent_replies),
        cmocka_unit_test(test_d_confirmation_and_removal),
        cmocka_unit_test(test_mail_in_exit_codes),
        cmocka_unit_test(test_f_deadlines_end_and_digest),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
