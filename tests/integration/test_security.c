#define _GNU_SOURCE
/*
 * test_security.c - the security matrix, against the real warroomd:
 *
 *  1. secrets stay secret: a seat token (or an invite) appears in no other
 *     connection's messages, not in `list`, `GET /games`, `GET /metrics`
 *     or an export, not in the server's log at --log-level debug, and not
 *     in the store: it holds only its SHA-256 (checked with the SQLite C
 *     API and by scanning the files' bytes; on PostgreSQL, when the tests
 *     name a cluster (pgdb.h), with libpq and every column's bytes);
 *  2. nobody acts for a seat it does not hold: a numbered table of who
 *     sends what (spectators, the other seat, a stranger, wrong or used
 *     tokens and invites, a seat field smuggled in) and the refusal each
 *     gets; the game is unchanged after them;
 *  3. a finished game accepts nothing: no command of either seat, no
 *     claim; it can still be watched and exported;
 *  4. TLS: with --tls-cert and --tls-key (a self-signed pair made here
 *     with OpenSSL's API) a TLS client verifying the certificate does the
 *     websocket handshake and hello/welcome, and GET /healthz over https;
 *     a plain-text client is not let in; WARROOM_TLS_CERT/KEY work as the
 *     flags do; bad TLS options stop start-up;
 *  5. webhooks cannot be aimed inside: with default settings, a webhook URL
 *     whose host is loopback, private, link-local (the cloud metadata
 *     address) or localhost, in any spelling, is refused (webhook_refused)
 *     by create, claim and notify, and the refusal changes nothing;
 *  6. a webhook owner whose hooks never answer cannot crowd others out:
 *     many games set up from 127.0.0.1 with webhooks at a listener that
 *     never answers, all notified, fill only that owner's share of the
 *     pending webhooks; a player from 127.0.0.2 still gets its POST. When
 *     two such owners fill every place, a third player still gets its POST;
 *  7. a seat's mail address is a secret too (issue 17): after a game played
 *     by mail through a real SMTP server on loopback (tests/support/mailbox.h),
 *     addresses registered by create and claim, confirmed and used by
 *     replies (mail_in), and mails given up (the SMTP server stopped), no
 *     address appears in `GET /games`, `GET /metrics`, `list`, an export,
 *     the other seat's or a spectator's messages, the seat's own state (at
 *     most "confirmed" there), the mail_in answers, nor the server's log at
 *     --log-level debug.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mailbox.h"
#include "proc.h"
#include "wsclient.h"

#define T 5000

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* --- a client that keeps a transcript of everything it received --------------- */

struct party {
    struct wt_client c;
    char *seen;                 /* every message received, one per line */
    size_t nseen;
};

static void note(struct party *p, json_t *m)
{
    char *s = json_dumps(m, JSON_COMPACT);
    size_t n = strlen(s);
    char *t = realloc(p->seen, p->nseen + n + 2);
    assert_non_null(t);
    memcpy(t + p->nseen, s, n);
    t[p->nseen + n] = '\n';
    t[p->nseen + n + 1] = '\0';
    p->seen = t;
    p->nseen += n + 1;
    free(s);
}

static json_t *got(struct party *p, const char *type)
{
    json_t *m = wt_expect(&p->c, type, T);
    if (m == NULL)
        fail_msg("%s: no %s", p->c.name, type);
    note(p, m);
    return m;
}

static void expect_error(struct party *p, const char *code, int n)
{
    json_t *e = got(p, "error");
    if (strcmp(str(e, "code"), code) != 0)
        fail_msg("row %d: %s got error %s (%s), want %s", n, p->c.name, str(e, "code"),
                 str(e, "message"), code);
    json_decref(e);
}

/* Read whatever is still coming, and note what waited in the backlog. */
static void settle(struct party *p)
{
    wt_drain(&p->c, 200);
    for (int i = 0; i < p->c.nbacklog; i++)
        note(p, p->c.backlog[i]);
    for (int i = 0; i < p->c.nbacklog; i++)
        json_decref(p->c.backlog[i]);
    p->c.nbacklog = 0;
}

static void open_party(struct party *p, const char *name, int port)
{
    memset(p, 0, sizeof *p);
    if (wt_open(&p->c, name, port) != 0)
        fail_msg("%s cannot connect", name);
}

static void close_party(struct party *p)
{
    wt_close(&p->c);
    free(p->seen);
    p->seen = NULL;
}

/* --- secrets -------------------------------------------------------------------- */

/* memmem over the whole buffer (binary files included). */
static int contains(const char *hay, size_t n, const char *needle)
{
    return hay && memmem(hay, n, needle, strlen(needle)) != NULL;
}

static void sha256_hex(const char *text, char out[65])
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)text, strlen(text), d);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

/* No secret in any file of the server's directory (database, WAL, log). */
static void scan_files(const struct wt_server *s, char secrets[][80], int nsecrets,
                       const char *when)
{
    static const char *const files[] = { "warroom.db", "warroom.db-wal", "stderr.log" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s", s->dir, files[f]);
        size_t n = 0;
        char *bytes = wt_read_file(path, &n);
        for (int i = 0; bytes && i < nsecrets; i++)
            if (contains(bytes, n, secrets[i]))
                fail_msg("%s: secret %d (%.8s...) is in %s", when, i, secrets[i], files[f]);
        free(bytes);
    }
}

/* Each row of sql on s's store, SQLite's file or PostgreSQL's database
 * (s->db a postgres:// URI), passed to row: every column's bytes (NULL for
 * SQL NULL; PostgreSQL's in binary form, so a text column is its text and
 * a bytea its bytes, each NUL-terminated) and their lengths. */
typedef void row_fn(void *ctx, int ncols, const char *const *v, const int *len);

static void store_rows(const struct wt_server *s, const char *sql, row_fn *row, void *ctx)
{
    enum { MAXCOLS = 32 };
    const char *v[MAXCOLS];
    int len[MAXCOLS];
    if (strncmp(s->db, "postgres://", 11) == 0) {
        PGconn *c = PQconnectdb(s->db);
        if (PQstatus(c) != CONNECTION_OK)
            fail_msg("cannot read the store %s: %s", s->db, PQerrorMessage(c));
        PGresult *r = PQexecParams(c, sql, 0, NULL, NULL, NULL, NULL, 1);
        if (PQresultStatus(r) != PGRES_TUPLES_OK)
            fail_msg("%s: %s", sql, PQerrorMessage(c));
        int ncols = PQnfields(r);
        assert_true(ncols <= MAXCOLS);
        for (int i = 0; i < PQntuples(r); i++) {
            for (int k = 0; k < ncols; k++) {
                v[k] = PQgetisnull(r, i, k) ? NULL : PQgetvalue(r, i, k);
                len[k] = PQgetlength(r, i, k);
            }
            row(ctx, ncols, v, len);
        }
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(s->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    int ncols = sqlite3_column_count(st);
    assert_true(ncols <= MAXCOLS);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int k = 0; k < ncols; k++) {
            v[k] = (const char *)sqlite3_column_blob(st, k);
            len[k] = sqlite3_column_bytes(st, k);
        }
        row(ctx, ncols, v, len);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* test_secrets_stay_secret's look at the store. */
struct store_look {
    const char *game;           /* the first game */
    char (*secrets)[80];        /* 0 alice's token, 1 bob's invite, 2 bob's token, 3 dave's */
    const char *table;
    int rows;
};

/* A seats row: the seat's token only as its hash, no invite left. */
static void seat_row(void *ctx, int ncols, const char *const *v, const int *len)
{
    struct store_look *l = ctx;
    (void)len;
    assert_int_equal(ncols, 4);
    assert_non_null(v[0]);
    assert_non_null(v[1]);
    int k = strcmp(v[0], l->game) == 0 ? (strcmp(v[1], "x") == 0 ? 0 : 2)
                                       : (strcmp(v[1], "o") == 0 ? 3 : -1);
    if (k >= 0) {
        char want[65];
        sha256_hex(l->secrets[k], want);
        assert_non_null(v[2]);
        assert_string_equal(v[2], want);
    }
    assert_null(v[3]);                  /* every invite was used */
    l->rows++;
}

/* Any row: no column holds a secret. */
static void secret_free_row(void *ctx, int ncols, const char *const *v, const int *len)
{
    struct store_look *l = ctx;
    for (int c = 0; c < ncols; c++)
        for (int k = 0; k < 4; k++)
            if (v[c] != NULL && contains(v[c], (size_t)len[c], l->secrets[k]))
                fail_msg("secret %d is in table %s", k, l->table);
}

static void test_secrets_stay_secret(void **state)
{
    (void)state;
    /* Bob's webhooks point at loopback: allowed by the operator. */
    static const char *const args[] = { "--log-level", "debug", "--webhook-allow", "127.0.0.1",
                                        NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct party alice, bob, carol, dave;
    open_party(&alice, "alice", s.port);
    open_party(&bob, "bob", s.port);
    open_party(&carol, "carol", s.port);
    open_party(&dave, "dave", s.port);
    /* secrets: 0 alice's token, 1 bob's invite, 2 bob's token, 3 dave's
     * token (an open seat of a second game) */
    char secrets[4][80];

    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = got(&alice, "created");
    char game[32];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    snprintf(secrets[0], sizeof secrets[0], "%s", str(created, "token"));
    snprintf(secrets[1], sizeof secrets[1], "%s",
             str(json_object_get(created, "invites"), "o"));
    json_decref(created);
    wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "claim", "invite", secrets[1], "webhook",
            "http://127.0.0.1:9/hook");
    json_t *claimed = got(&bob, "claimed");
    snprintf(secrets[2], sizeof secrets[2], "%s", str(claimed, "token"));
    json_decref(claimed);
    /* A second game with an open seat, claimed from the lobby by dave. */
    wt_send(&alice.c, "{s:s, s:s, s:s, s:{s:b}}", "type", "create", "ruleset", "tictactoe",
            "seat", "x", "options", "open_seats", 1);
    json_t *created2 = got(&alice, "created");
    char game2[32];
    snprintf(game2, sizeof game2, "%s", str(created2, "game"));
    json_decref(created2);
    wt_send(&carol.c, "{s:s, s:s, s:b}", "type", "join", "game", game2, "spectate", 1);
    json_decref(got(&carol, "state"));
    wt_send(&dave.c, "{s:s, s:s, s:s}", "type", "claim", "game", game2, "seat", "o");
    json_t *claimed2 = got(&dave, "claimed");
    snprintf(secrets[3], sizeof secrets[3], "%s", str(claimed2, "token"));
    json_decref(claimed2);
    for (int i = 0; i < 4; i++)
        assert_int_equal(strlen(secrets[i]), i == 1 ? 32 : 64);

    /* Play: join with tokens again (as after a reconnect), watch, move. */
    wt_send(&carol.c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_decref(got(&carol, "state"));
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", secrets[0]);
    json_decref(got(&alice, "state"));
    static const int cells[5] = { 4, 0, 8, 2, 1 };
    for (int m = 0; m < 5; m++) {
        struct party *p = m % 2 == 0 ? &alice : &bob;
        wt_send(&p->c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq",
                m / 2 + 1, "cmd", "type", "mark", "cell", cells[m]);
        json_decref(got(p, "ack"));
    }
    /* Wrong and borrowed tokens, by a stranger: refused, never echoed. */
    char wrong[80];
    snprintf(wrong, sizeof wrong, "%s", secrets[0]);
    wrong[63] = wrong[63] == '0' ? '1' : '0';
    wt_send(&dave.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", wrong);
    expect_error(&dave, "bad_token", 1);
    wt_send(&dave.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", secrets[3]);
    expect_error(&dave, "bad_token", 2);
    /* Lists and exports, over websockets and HTTP. */
    wt_send(&dave.c, "{s:s}", "type", "list");
    json_decref(got(&dave, "games"));
    wt_send(&dave.c, "{s:s, s:s}", "type", "export", "game", game);
    json_decref(got(&dave, "record"));
    wt_send(&carol.c, "{s:s, s:s}", "type", "export", "game", game2);
    json_decref(got(&carol, "record"));
    wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "notify", "game", game, "webhook",
            "http://127.0.0.1:9/other");
    json_decref(got(&bob, "ok"));
    static char body[65536];
    static const char *const pages[] = { "/games", "/metrics", "/healthz" };
    for (size_t i = 0; i < 3; i++) {
        int status = 0;
        assert_int_equal(wt_http_get(s.port, pages[i], &status, body, sizeof body), 0);
        assert_int_equal(status, 200);
        for (int k = 0; k < 4; k++)
            if (strstr(body, secrets[k]))
                fail_msg("secret %d is in GET %s", k, pages[i]);
    }
    settle(&alice);
    settle(&bob);
    settle(&carol);
    settle(&dave);
    /* Who saw what: each only their own. */
    const struct {
        struct party *p;
        int may[4];             /* secrets this party was given */
    } who[] = {
        { &alice, { 1, 1, 0, 0 } },     /* her token, and the invite she passes on */
        { &bob, { 0, 0, 1, 0 } },
        { &carol, { 0, 0, 0, 0 } },
        { &dave, { 0, 0, 0, 1 } },
    };
    for (size_t i = 0; i < 4; i++) {
        assert_true(who[i].p->nseen > 0);
        for (int k = 0; k < 4; k++) {
            int has = contains(who[i].p->seen, who[i].p->nseen, secrets[k]);
            if (has && !who[i].may[k])
                fail_msg("%s received secret %d", who[i].p->c.name, k);
            if (!has && who[i].may[k])
                fail_msg("%s never received its secret %d", who[i].p->c.name, k);
        }
    }

    /* The store: hashes only. The files are scanned while the server runs
     * (the WAL holds the recent writes), and after it stopped. */
    scan_files(&s, secrets, 4, "running");
    struct store_look look = { game, secrets, NULL, 0 };
    store_rows(&s, "SELECT game, seat, token_hash, invite_hash FROM seats ORDER BY game, seat",
               seat_row, &look);
    assert_int_equal(look.rows, 4);
    /* No column of any table holds a secret. */
    static const char *const tables[] = { "games", "seats", "commands", "snapshots" };
    for (size_t t = 0; t < 4; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM %s", tables[t]);
        look.table = tables[t];
        store_rows(&s, sql, secret_free_row, &look);
    }

    close_party(&alice);
    close_party(&bob);
    close_party(&carol);
    close_party(&dave);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The log was written at debug level, and holds the games, not their keys. */
    char *log = wt_server_log(&s, NULL);
    assert_non_null(log);
    assert_non_null(strstr(log, "msg=\"game created\""));
    assert_non_null(strstr(log, game));
    free(log);
    scan_files(&s, secrets, 4, "stopped");
    wt_server_cleanup(&s);
}

/* --- nobody acts for a seat it does not hold ---------------------------------------- */

enum actor { ALICE, BOB, CAROL, EVE };

struct act_row {
    int n;
    const char *what;
    enum actor who;
    const char *text;           /* $G game, $X alice's token, $I bob's used invite */
    const char *want;           /* the error code */
};

static const struct act_row act_rows[] = {
    { 1, "the spectator sends a command", CAROL,
      "{\"type\":\"command\",\"game\":\"$G\",\"seq\":1,\"cmd\":{\"type\":\"mark\",\"cell\":1}}",
      "spectator" },
    { 2, "the spectator sets a webhook", CAROL,
      "{\"type\":\"notify\",\"game\":\"$G\",\"webhook\":\"http://127.0.0.1:9/\"}", "not_joined" },
    { 3, "o moves on x's turn", BOB,
      "{\"type\":\"command\",\"game\":\"$G\",\"seq\":1,\"cmd\":{\"type\":\"mark\",\"cell\":1}}",
      "not_your_turn" },
    { 4, "o names x's seat in its command", BOB,
      "{\"type\":\"command\",\"game\":\"$G\",\"seq\":2,\"seat\":\"x\",\"cmd\":{\"type\":\"mark\","
      "\"cell\":1}}", "bad_message" },
    { 5, "o names x's seat inside cmd", BOB,
      "{\"type\":\"command\",\"game\":\"$G\",\"seq\":3,\"cmd\":{\"type\":\"mark\",\"cell\":1,"
      "\"seat\":\"x\"}}", "not_your_turn" },
    { 6, "a stranger sends a command", EVE,
      "{\"type\":\"command\",\"game\":\"$G\",\"seq\":1,\"cmd\":{\"type\":\"mark\",\"cell\":1}}",
      "not_joined" },
    { 7, "a stranger joins with x's token upper-cased", EVE,
      "{\"type\":\"join\",\"game\":\"$G\",\"token\":\"$U\"}", "bad_token" },
    { 8, "a stranger joins with x's token cut short", EVE,
      "{\"type\":\"join\",\"game\":\"$G\",\"token\":\"$S\"}", "bad_token" },
    { 9, "a stranger joins with an empty token", EVE,
      "{\"type\":\"join\",\"game\":\"$G\",\"token\":\"\"}", "bad_token" },
    { 10, "a stranger re-uses bob's invite", EVE, "{\"type\":\"claim\",\"invite\":\"$I\"}",
      "bad_invite" },
    { 11, "a stranger claims o from the lobby (invite-only game)", EVE,
      "{\"type\":\"claim\",\"game\":\"$G\",\"seat\":\"o\"}", "not_open" },
    { 12, "x claims o from the lobby", ALICE, "{\"type\":\"claim\",\"game\":\"$G\",\"seat\":\"o\"}",
      "not_open" },
    { 13, "a stranger joins with both a token and spectate", EVE,
      "{\"type\":\"join\",\"game\":\"$G\",\"token\":\"$X\",\"spectate\":true}", "bad_message" },
    { 14, "a stranger asks the game's picture", EVE,
      "{\"type\":\"ask\",\"game\":\"$G\",\"what\":\"draw\"}", "not_joined" },
    { 15, "a stranger asks x's order checked", EVE,
      "{\"type\":\"ask\",\"game\":\"$G\",\"what\":\"order\",\"line\":\"mark 1\"}",
      "not_joined" },
    { 16, "o asks its order out of turn: refused as the server would", BOB,
      "{\"type\":\"ask\",\"game\":\"$G\",\"what\":\"order\",\"line\":\"mark 1\"}",
      "not_your_turn" },
};

static void test_nobody_acts_for_another(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, NULL), 0);
    struct party p[4];
    static const char *const names[] = { "alice", "bob", "carol", "eve" };
    for (int i = 0; i < 4; i++)
        open_party(&p[i], names[i], s.port);
    wt_send(&p[ALICE].c, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = got(&p[ALICE], "created");
    char game[32], tx[80], inv[40];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    snprintf(tx, sizeof tx, "%s", str(created, "token"));
    snprintf(inv, sizeof inv, "%s", str(json_object_get(created, "invites"), "o"));
    json_decref(created);
    wt_send(&p[BOB].c, "{s:s, s:s}", "type", "claim", "invite", inv);
    json_decref(got(&p[BOB], "claimed"));
    wt_send(&p[CAROL].c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_decref(got(&p[CAROL], "state"));
    json_decref(got(&p[ALICE], "state"));
    char upper[80], shorter[80];
    for (int i = 0; i < 65; i++)
        upper[i] = (char)(tx[i] >= 'a' && tx[i] <= 'f' ? tx[i] - 32 : tx[i]);
    snprintf(shorter, sizeof shorter, "%.63s", tx);
    for (size_t i = 0; i < sizeof act_rows / sizeof act_rows[0]; i++) {
        const struct act_row *r = &act_rows[i];
        char text[512];
        size_t n = 0;
        for (const char *q = r->text; *q; q++) {
            const char *sub = NULL;
            if (q[0] == '$')
                sub = q[1] == 'G' ? game : q[1] == 'X' ? tx : q[1] == 'U' ? upper
                    : q[1] == 'S' ? shorter : q[1] == 'I' ? inv : NULL;
            if (sub) {
                n += (size_t)snprintf(text + n, sizeof text - n, "%s", sub);
                q++;
            } else {
                text[n++] = *q;
            }
        }
        text[n] = '\0';
        wt_send_text(&p[r->who].c, text);
        expect_error(&p[r->who], r->want, r->n);
    }
    /* Nothing moved; x can still move. */
    json_t *st = NULL;
    wt_send(&p[EVE].c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    st = got(&p[EVE], "state");
    assert_int_equal(json_integer_value(json_object_get(st, "version")), 0);
    assert_string_equal(str(json_object_get(st, "state"), "board"), ".........");
    json_decref(st);
    wt_send(&p[ALICE].c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq",
            1, "cmd", "type", "mark", "cell", 4);
    json_t *ack = got(&p[ALICE], "ack");
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 1);
    json_decref(ack);
    for (int i = 0; i < 4; i++)
        close_party(&p[i]);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* --- a finished game accepts nothing --------------------------------------------------- */

static void test_finished_game_accepts_nothing(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, NULL), 0);
    struct party a, b, c;
    open_party(&a, "alice", s.port);
    open_party(&b, "bob", s.port);
    open_party(&c, "carol", s.port);
    wt_send(&a.c, "{s:s, s:s, s:s, s:{s:b}}", "type", "create", "ruleset", "tictactoe", "seat",
            "x", "options", "open_seats", 1);
    json_t *created = got(&a, "created");
    char game[32];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    json_decref(created);
    wt_send(&b.c, "{s:s, s:s, s:s}", "type", "claim", "game", game, "seat", "o");
    json_decref(got(&b, "claimed"));
    /* x wins the diagonal 0 4 8. */
    static const int cells[5] = { 0, 1, 4, 2, 8 };
    for (int m = 0; m < 5; m++) {
        struct party *p = m % 2 == 0 ? &a : &b;
        wt_send(&p->c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq",
                m / 2 + 1, "cmd", "type", "mark", "cell", cells[m]);
        json_decref(got(p, "ack"));
    }
    /* 1 x, 2 o (whose turn it would be), with new seqs: game_over. */
    for (int i = 0; i < 2; i++) {
        struct party *p = i == 0 ? &a : &b;
        wt_send(&p->c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq",
                10, "cmd", "type", "mark", "cell", 5);
        expect_error(p, "game_over", i + 1);
    }
    /* 3 a malformed command: game_over too (nothing is even parsed). */
    wt_send(&a.c, "{s:s, s:s, s:i, s:{s:s}}", "type", "command", "game", game, "seq", 11, "cmd",
            "type", "resign");
    expect_error(&a, "game_over", 3);
    /* 4 every seat is taken: no claim. */
    wt_send(&c.c, "{s:s, s:s, s:s}", "type", "claim", "game", game, "seat", "o");
    expect_error(&c, "seat_taken", 4);
    /* 5 an old seq is answered as it was, not applied again. */
    wt_send(&a.c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 3,
            "cmd", "type", "mark", "cell", 8);
    json_t *ack = got(&a, "ack");
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 5);
    json_decref(ack);
    /* Still watchable and exportable, unchanged, the seed now revealed. */
    wt_send(&c.c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_t *st = got(&c, "state");
    assert_string_equal(str(st, "status"), "finished");
    assert_int_equal(json_integer_value(json_object_get(st, "version")), 5);
    assert_string_equal(str(json_object_get(st, "state"), "board"), "xoo.x...x");
    json_decref(st);
    wt_send(&c.c, "{s:s, s:s}", "type", "export", "game", game);
    json_t *rec = got(&c, "record");
    assert_non_null(strstr(str(rec, "record"), "\"seed\""));
    json_decref(rec);
    close_party(&a);
    close_party(&b);
    close_party(&c);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* --- TLS -------------------------------------------------------------------------------- */

/* A self-signed EC P-256 certificate for 127.0.0.1 (subjectAltName IP). */
static void make_cert(const char *cert_path, const char *key_path)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");
    assert_non_null(key);
    X509 *x = X509_new();
    assert_non_null(x);
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), -60);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, key);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"127.0.0.1", -1,
                               -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX v3;
    X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
    static const struct { int nid; const char *value; } exts[] = {
        { NID_subject_alt_name, "IP:127.0.0.1" },
        { NID_basic_constraints, "critical,CA:TRUE" },
    };
    for (size_t i = 0; i < 2; i++) {
        X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &v3, exts[i].nid, exts[i].value);
        assert_non_null(e);
        X509_add_ext(x, e, -1);
        X509_EXTENSION_free(e);
    }
    assert_true(X509_sign(x, key, EVP_sha256()) > 0);
    FILE *f = fopen(cert_path, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_X509(f, x), 1);
    fclose(f);
    f = fopen(key_path, "w");
    assert_non_null(f);
    assert_int_equal(PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL), 1);
    fclose(f);
    X509_free(x);
    EVP_PKEY_free(key);
}

struct tls {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
};

static int tls_write(void *io, const void *buf, size_t len)
{
    struct tls *t = io;
    while (len > 0) {
        int n = SSL_write(t->ssl, buf, (int)len);
        if (n <= 0)
            return -1;
        buf = (const char *)buf + n;
        len -= (size_t)n;
    }
    return 0;
}

/* The socket has SO_RCVTIMEO, so each SSL_read is bounded too. */
static int tls_read(void *io, void *buf, size_t len, long deadline)
{
    struct tls *t = io;
    while (len > 0) {
        if (now_ms() > deadline)
            return -1;
        int n = SSL_read(t->ssl, buf, (int)len);
        if (n <= 0)
            return -1;
        buf = (char *)buf + n;
        len -= (size_t)n;
    }
    return 0;
}

/* A TLS connection to 127.0.0.1:port that trusts only cert_path and checks
 * that the certificate is for 127.0.0.1. */
static int tls_connect(struct tls *t, int port, const char *cert_path)
{
    memset(t, 0, sizeof *t);
    t->fd = wt_tcp_connect("127.0.0.1", port);
    if (t->fd < 0)
        return -1;
    struct timeval tv = { 5, 0 };
    setsockopt(t->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(t->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (t->ctx == NULL || SSL_CTX_load_verify_locations(t->ctx, cert_path, NULL) != 1)
        return -1;
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    t->ssl = SSL_new(t->ctx);
    if (t->ssl == NULL ||
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), "127.0.0.1") != 1 ||
        SSL_set_fd(t->ssl, t->fd) != 1 || SSL_connect(t->ssl) != 1 ||
        SSL_get_verify_result(t->ssl) != X509_V_OK)
        return -1;
    return 0;
}

static void tls_close(struct tls *t)
{
    if (t->ssl)
        SSL_free(t->ssl);
    if (t->ctx)
        SSL_CTX_free(t->ctx);
    if (t->fd >= 0)
        close(t->fd);
    memset(t, 0, sizeof *t);
    t->fd = -1;
}

/* A masked text frame, over TLS. */
static int tls_send_text(struct tls *t, const char *text)
{
    size_t len = strlen(text), h = 0;
    unsigned char buf[512];
    if (len >= 126 || len + 6 > sizeof buf)
        return -1;
    buf[h++] = 0x81;
    buf[h++] = (unsigned char)(0x80 | len);
    static const unsigned char mask[4] = { 1, 2, 3, 4 };
    memcpy(buf + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < len; i++)
        buf[h + i] = (unsigned char)text[i] ^ mask[i % 4];
    return tls_write(t, buf, h + len);
}

/* One unfragmented frame from the server; payload malloc'd. */
static char *tls_recv_frame(struct tls *t, int *opcode)
{
    long deadline = now_ms() + T;
    unsigned char h[8];
    if (tls_read(t, h, 2, deadline) < 0)
        return NULL;
    *opcode = h[0] & 0x0f;
    size_t n = h[1] & 0x7f;
    if (n == 126) {
        if (tls_read(t, h, 2, deadline) < 0)
            return NULL;
        n = ((size_t)h[0] << 8) | h[1];
    } else if (n == 127) {
        return NULL;
    }
    char *p = malloc(n + 1);
    if (p == NULL || tls_read(t, p, n, deadline) < 0) {
        free(p);
        return NULL;
    }
    p[n] = '\0';
    return p;
}

/* GET path over https; the status, and the body in body. */
static int https_get(int port, const char *cert_path, const char *path, char *body, size_t cap)
{
    struct tls t;
    int status = -1;
    if (tls_connect(&t, port, cert_path) == 0) {
        char req[256], head[2048];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", path);
        size_t h = 0;
        long deadline = now_ms() + T;
        if (tls_write(&t, req, (size_t)n) == 0) {
            while (h + 1 < sizeof head && tls_read(&t, head + h, 1, deadline) == 0) {
                head[++h] = '\0';
                if (h >= 4 && memcmp(head + h - 4, "\r\n\r\n", 4) == 0)
                    break;
            }
            char *cl = strcasestr(head, "content-length:");
            size_t len = cl ? strtoul(cl + 15, NULL, 10) : 0;
            if (sscanf(head, "HTTP/1.1 %d", &status) == 1 && len < cap &&
                tls_read(&t, body, len, deadline) == 0)
                body[len] = '\0';
            else
                status = -1;
        }
    }
    tls_close(&t);
    return status;
}

static void test_tls(void **state)
{
    (void)state;
    char dir[] = "/tmp/warroom-tls-XXXXXX", cert[64], key[64], other[64], other_key[64];
    assert_non_null(mkdtemp(dir));
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(other, sizeof other, "%s/other.pem", dir);
    snprintf(other_key, sizeof other_key, "%s/other-key.pem", dir);
    make_cert(cert, key);
    make_cert(other, other_key);    /* another pair: not the server's */

    const char *const args[] = { "--tls-cert", cert, "--tls-key", key, NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    /* 1 websocket over TLS: handshake, hello, welcome. */
    struct tls t;
    if (tls_connect(&t, s.port, cert) != 0) {
        ERR_print_errors_fp(stderr);
        fail_msg("no TLS connection");
    }
    assert_int_equal(wt_ws_handshake(&t, tls_write, tls_read, s.port), 0);
    assert_int_equal(tls_send_text(&t, "{\"type\":\"hello\",\"protocol\":1}"), 0);
    int op = 0;
    char *msg = tls_recv_frame(&t, &op);
    assert_non_null(msg);
    assert_int_equal(op, 1);
    assert_non_null(strstr(msg, "\"type\":\"welcome\""));
    free(msg);
    /* ... and a game, to see the protocol works past hello. */
    assert_int_equal(tls_send_text(&t, "{\"type\":\"create\",\"ruleset\":\"tictactoe\"}"), 0);
    int created = 0, states = 0;
    for (int i = 0; i < 2; i++) {       /* the state, and the created answer */
        msg = tls_recv_frame(&t, &op);
        assert_non_null(msg);
        created += strstr(msg, "\"type\":\"created\"") != NULL;
        states += strstr(msg, "\"type\":\"state\"") != NULL;
        free(msg);
    }
    assert_int_equal(created, 1);
    assert_int_equal(states, 1);
    tls_close(&t);
    /* 2 GET /healthz over https. */
    char body[1024];
    assert_int_equal(https_get(s.port, cert, "/healthz", body, sizeof body), 200);
    assert_non_null(strstr(body, "\"status\":\"ok\""));
    assert_non_null(strstr(body, "\"games\":1"));
    /* 3 plain text on the TLS port: no websocket, no HTTP answer. */
    assert_int_equal(wt_ws_connect(s.port), -1);
    int status = 0;
    assert_true(wt_http_get(s.port, "/healthz", &status, body, sizeof body) != 0 ||
                status != 200);
    /* 4 a client that trusts another certificate refuses this server. */
    assert_int_equal(tls_connect(&t, s.port, other), -1);
    tls_close(&t);
    /* The server is still fine after all that. */
    assert_int_equal(https_get(s.port, cert, "/healthz", body, sizeof body), 200);
    status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *log = wt_server_log(&s, NULL);
    wt_server_cleanup(&s);
    free(log);

    /* 5 the same from the environment. */
    setenv("WARROOM_TLS_CERT", cert, 1);
    setenv("WARROOM_TLS_KEY", key, 1);
    int started = wt_server_start(&s, NULL);
    unsetenv("WARROOM_TLS_CERT");
    unsetenv("WARROOM_TLS_KEY");
    assert_int_equal(started, 0);
    assert_int_equal(https_get(s.port, cert, "/healthz", body, sizeof body), 200);
    status = wt_server_stop(&s, SIGTERM, 10000);
    wt_server_cleanup(&s);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* 6 bad options stop start-up: a certificate without a key, a key that
     * is not the certificate's, a missing file. */
    const char *const no_key[] = { "--tls-cert", cert, NULL };
    const char *const wrong_key[] = { "--tls-cert", cert, "--tls-key", other_key, NULL };
    const char *const missing[] = { "--tls-cert", "/nonexistent/cert.pem", "--tls-key", key,
                                    NULL };
    const char *const *bad[] = { no_key, wrong_key, missing };
    for (int i = 0; i < 3; i++) {
        if (wt_server_start(&s, bad[i]) == 0) {
            wt_server_stop(&s, SIGKILL, 10000);
            wt_server_cleanup(&s);
            fail_msg("bad TLS options %d: the server started", i);
        }
        wt_server_cleanup(&s);
    }
    unlink(cert);
    unlink(key);
    unlink(other);
    unlink(other_key);
    rmdir(dir);
}

/* --- 5. webhooks cannot be aimed inside ------------------------------------------------ */

struct inside_row {
    int row;
    const char *url;
    const char *why;            /* a word the error message must hold */
};

static const struct inside_row inside[] = {
    { 1, "http://127.0.0.1:9/hook", "loopback" },
    { 2, "http://10.1.2.3/hook", "private" },
    { 3, "http://169.254.169.254/latest/meta-data/", "cloud metadata" },
    { 4, "http://localhost:8080/hook", "localhost" },
    { 5, "http://127.1/", "loopback" },
    { 6, "http://2130706433:8080/", "loopback" },
    { 7, "http://[::ffff:127.0.0.1]/", "loopback" },
    { 8, "http://[::1]:8080/", "loopback" },
    { 9, "http://hooks.localhost/", "localhost" },
    { 10, "http://192.168.1.1/", "private" },
};

static void expect_refused(struct party *p, const char *kind, const struct inside_row *r)
{
    json_t *e = got(p, "error");
    if (strcmp(str(e, "code"), "webhook_refused") != 0)
        fail_msg("row %d (%s, %s): error %s (%s), want webhook_refused", r->row, kind, r->url,
                 str(e, "code"), str(e, "message"));
    if (strstr(str(e, "message"), r->why) == NULL)
        fail_msg("row %d (%s): \"%s\" does not say \"%s\"", r->row, kind, str(e, "message"),
                 r->why);
    json_decref(e);
}

static void expect_no_error_left(struct party *p)
{
    wt_drain(&p->c, 100);
    for (int i = 0; i < p->c.nbacklog; i++)
        if (strcmp(str(p->c.backlog[i], "type"), "error") == 0 ||
            strcmp(str(p->c.backlog[i], "type"), "created") == 0 ||
            strcmp(str(p->c.backlog[i], "type"), "claimed") == 0)
            fail_msg("%s got an unexpected %s", p->c.name, str(p->c.backlog[i], "type"));
}

static void test_webhook_destinations(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, NULL), 0);       /* default settings */
    struct party alice, bob;
    open_party(&alice, "alice", s.port);
    open_party(&bob, "bob", s.port);
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = got(&alice, "created");
    char game[32], invite[40];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    snprintf(invite, sizeof invite, "%s", str(json_object_get(created, "invites"), "o"));
    json_decref(created);

    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        const struct inside_row *r = &inside[i];
        wt_send(&bob.c, "{s:s, s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat",
                "x", "webhook", r->url);
        expect_refused(&bob, "create", r);
        wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "claim", "invite", invite, "webhook", r->url);
        expect_refused(&bob, "claim", r);
        wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "notify", "game", game, "webhook", r->url);
        expect_refused(&alice, "notify", r);
    }
    /* A malformed URL is still a bad message, whatever its host. */
    wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "claim", "invite", invite, "webhook",
            "https://127.0.0.1/");
    expect_error(&bob, "bad_message", 20);
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "notify", "game", game, "webhook",
            "ftp://10.0.0.1/");
    expect_error(&alice, "bad_message", 21);
    expect_no_error_left(&alice);
    expect_no_error_left(&bob);

    /* The refusals changed nothing: no game was made, the invite still works,
     * and a public destination (a name: looked up only when notifying) is
     * taken. */
    static char body[65536];
    int status = 0;
    assert_int_equal(wt_http_get(s.port, "/metrics", &status, body, sizeof body), 0);
    assert_non_null(strstr(body, "warroom_games 1\n"));
    assert_non_null(strstr(body, "warroom_webhooks_refused_total 0\n"));
    wt_send(&bob.c, "{s:s, s:s}", "type", "claim", "invite", invite);
    json_decref(got(&bob, "claimed"));
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "notify", "game", game, "webhook",
            "http://hooks.example.com/alice");
    json_decref(got(&alice, "ok"));
    wt_send(&alice.c, "{s:s, s:s, s:n}", "type", "notify", "game", game, "webhook");
    json_decref(got(&alice, "ok"));
    close_party(&alice);
    close_party(&bob);
    int st = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    wt_server_cleanup(&s);
}

/* --- 6. a silent webhook owner cannot crowd others out ----------------------------------- */

/* The server: a small cap, a small share, loopback receivers allowed. */
#define SHARE_CAP "8"
#define SHARE_PER_OWNER "4"
#define ATTACK_GAMES 12         /* three times the share, more than the cap */
static const char *const share_args[] = { "--webhook-allow", "127.0.0.1",
                                          "--webhook-max-pending", SHARE_CAP,
                                          "--webhook-max-per-owner", SHARE_PER_OWNER, NULL };

/* A game whose seat x has webhook url, set by owner, who then leaves; the
 * claimer takes seat o, so the game starts awaiting x, who is not there:
 * x is notified. The notification is queued (or dropped) by the time the
 * claimer has its answer: both happen in the same flush. */
static void notified_game(struct party *owner, struct party *claimer, const char *url,
                          char game[32])
{
    wt_send(&owner->c, "{s:s, s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat",
            "x", "webhook", url);
    json_t *created = got(owner, "created");
    char invite[40];
    snprintf(game, 32, "%s", str(created, "game"));
    snprintf(invite, sizeof invite, "%s", str(json_object_get(created, "invites"), "o"));
    json_decref(created);
    wt_send(&owner->c, "{s:s, s:s}", "type", "leave", "game", game);
    json_decref(got(owner, "left"));
    wt_send(&claimer->c, "{s:s, s:s}", "type", "claim", "invite", invite);
    json_decref(got(claimer, "claimed"));
}

/* The value of a metric in GET /metrics, or -1. */
static long long metric(int port, const char *name)
{
    static char body[65536];
    int status = 0;
    if (wt_http_get(port, "/metrics", &status, body, sizeof body) != 0 || status != 200)
        return -1;
    char key[128];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(body, key);
    return p != NULL ? atoll(p + strlen(key)) : -1;
}

/* Wait until the metric has the value: the server's state, asked until the
 * deadline. */
static void wait_metric(int port, const char *name, long long want)
{
    long deadline = now_ms() + T;
    long long v = metric(port, name);
    while (v != want && now_ms() < deadline) {
        poll(NULL, 0, 5);
        v = metric(port, name);
    }
    if (v != want)
        fail_msg("%s is %lld, want %lld", name, v, want);
}

/* The victim's POST arrives at its receiver, for its game and seat. */
static void expect_post(int lfd, const char *who, const char *game)
{
    char *body = wt_http_receive_post(lfd, 10000, NULL, 0);
    if (body == NULL)
        fail_msg("the notification of the player from %s never arrived", who);
    json_t *j = json_loads(body, 0, NULL);
    assert_non_null(j);
    assert_string_equal(str(j, "game"), game);
    assert_string_equal(str(j, "seat"), "x");
    assert_string_equal(str(j, "event"), "your_turn");
    json_decref(j);
    free(body);
}

static void test_silent_hooks_take_only_their_share(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, share_args), 0);
    int silent_port = 0, good_port = 0;
    int silent = wt_http_listen(&silent_port);      /* listens, never accepts */
    int good = wt_http_listen(&good_port);
    assert_true(silent >= 0 && good >= 0);
    char silent_url[96], good_url[96], game[32];
    snprintf(silent_url, sizeof silent_url, "http://127.0.0.1:%d/never", silent_port);
    snprintf(good_url, sizeof good_url, "http://127.0.0.1:%d/player", good_port);
    struct party mallory, claimer, victim;
    open_party(&mallory, "mallory", s.port);        /* from 127.0.0.1 */
    open_party(&claimer, "claimer", s.port);
    memset(&victim, 0, sizeof victim);
    if (wt_open_from(&victim.c, "victim", s.port, "127.0.0.2") != 0)
        fail_msg("victim cannot connect from 127.0.0.2");

    for (int i = 0; i < ATTACK_GAMES; i++)
        notified_game(&mallory, &claimer, silent_url, game);
    notified_game(&victim, &claimer, good_url, game);
    expect_post(good, "127.0.0.2", game);
    /* Mallory kept her share pending and lost the rest; the victim lost
     * nothing. */
    assert_int_equal(metric(s.port, "warroom_webhooks_dropped_total"),
                     ATTACK_GAMES - atoi(SHARE_PER_OWNER));
    wait_metric(s.port, "warroom_webhooks_pending", atoi(SHARE_PER_OWNER));
    char *log = wt_server_log(&s, NULL);
    assert_non_null(log);
    assert_non_null(strstr(log, "owner=\"from 127.0.0.1\""));
    assert_null(strstr(log, "owner=\"from 127.0.0.2\""));
    free(log);

    /* A second silent owner (127.0.0.3) fills the other places; a player
     * from 127.0.0.4 is still notified, in the place of one of theirs. */
    struct party trudy, victim2;
    memset(&trudy, 0, sizeof trudy);
    memset(&victim2, 0, sizeof victim2);
    if (wt_open_from(&trudy.c, "trudy", s.port, "127.0.0.3") != 0 ||
        wt_open_from(&victim2.c, "victim2", s.port, "127.0.0.4") != 0)
        fail_msg("cannot connect from 127.0.0.3 or 127.0.0.4");
    for (int i = 0; i < atoi(SHARE_PER_OWNER) + 2; i++)
        notified_game(&trudy, &claimer, silent_url, game);
    assert_int_equal(metric(s.port, "warroom_webhooks_pending"), atoi(SHARE_CAP));
    notified_game(&victim2, &claimer, good_url, game);
    expect_post(good, "127.0.0.4", game);
    assert_int_equal(metric(s.port, "warroom_webhooks_dropped_total"),
                     ATTACK_GAMES - atoi(SHARE_PER_OWNER) + 2 + 1);

    close_party(&mallory);
    close_party(&claimer);
    close_party(&victim);
    close_party(&trudy);
    close_party(&victim2);
    close(silent);
    close(good);
    int st = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    wt_server_cleanup(&s);
}

/* --- mail addresses stay secret ------------------------------------------------------ */

/* The value of the mail module's given-up counter in GET /metrics: the
 * first sample (not a # line) whose name starts with "warroom_mail" and
 * holds "given_up"; -1 when there is none. */
static long long mail_given_up(int port)
{
    static char body[65536];
    int status = 0;
    if (wt_http_get(port, "/metrics", &status, body, sizeof body) != 0 || status != 200)
        return -1;
    for (char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t n = strcspn(l, " {\n");
        if (strncmp(l, "warroom_mail", 12) == 0 && memmem(l, n, "given_up", 8) != NULL) {
            const char *v = l + strcspn(l, " \n");
            return *v == ' ' ? atoll(v + 1) : -1;
        }
    }
    return -1;
}

/* The reply address of a mail (its Reply-To's address). */
static void reply_address(const struct wt_mail *m, char *out, size_t cap)
{
    if (wt_mail_address(wt_mail_header(m, "Reply-To"), out, cap) < 0)
        fail_msg("mail %d has no Reply-To:\n%s", m->n, m->raw);
}

/* The next mail to addr whose Subject holds words (others skipped); words
 * NULL: the next game mail (not a confirmation request). */
static struct wt_mail *mail_with(struct wt_mailbox *mb, const char *addr, const char *words)
{
    for (int i = 0; i < 8; i++) {
        struct wt_mail *m = wt_mailbox_next(mb, addr, 10000);
        if (m == NULL)
            fail_msg("no mail to %s about '%s' (the maildir has %d)", addr,
                     words ? words : "the game", wt_mailbox_count(mb));
        const char *subject = wt_mail_header(m, "Subject");
        if (subject && (words ? strstr(subject, words) != NULL
                              : strstr(subject, "confirm your address") == NULL))
            return m;
        wt_mail_free(m);
    }
    fail_msg("no mail to %s about '%s' among the next 8", addr, words ? words : "the game");
    return NULL;
}

/* eve, the MTA, hands in a reply to the tag of m with lines: the answer's
 * result must be want. */
static void mail_in(struct party *eve, const struct wt_mail *m, json_t *lines, const char *want)
{
    char to[320];
    reply_address(m, to, sizeof to);
    wt_send(&eve->c, "{s:s, s:[s], s:o, s:s}", "type", "mail_in", "to", to, "lines", lines,
            "message_id", "<reply@players.test>");
    json_t *a = got(eve, "mail_in");
    if (str(a, "result") == NULL || strcmp(str(a, "result"), want) != 0)
        fail_msg("mail_in to %s: result %s, want %s", to, str(a, "result"), want);
    json_decref(a);
}

static void test_mail_addresses_stay_secret(void **state)
{
    (void)state;
    static const char *const addr[2] = { "secret-mailbox-7q@players.test",
                                         "secret-mailbox-8w@players.test" };
    struct wt_mailbox mb;
    assert_int_equal(wt_mailbox_start(&mb, NULL), 0);
    const char *const args[] = { "--log-level", "debug", "--smtp", mb.url, "--mail-from",
                                 "warroom@test.example", "--mail-reply", "play@test.example",
                                 "--mail-retry-ms", "100", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct party alice, bob, carol, eve;
    open_party(&alice, "alice", s.port);
    open_party(&bob, "bob", s.port);
    open_party(&carol, "carol", s.port);
    open_party(&eve, "eve", s.port);

    /* x by alice and o by bob, each with an address; carol watches. */
    wt_send(&alice.c, "{s:s, s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat",
            "x", "mail", addr[0]);
    json_t *created = got(&alice, "created");
    char game[32], token[80];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    snprintf(token, sizeof token, "%s", str(created, "token"));
    wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "claim", "invite",
            str(json_object_get(created, "invites"), "o"), "mail", addr[1]);
    json_decref(created);
    json_t *claimed = got(&bob, "claimed");
    char btoken[80];
    snprintf(btoken, sizeof btoken, "%s", str(claimed, "token"));
    json_decref(claimed);
    wt_send(&carol.c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_decref(got(&carol, "state"));
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", token);
    json_decref(got(&alice, "state"));
    /* The players go: a seat with a connection joined gets no turn mail
     * (it sees its turn on screen). What they were sent holds no address. */
    settle(&alice);
    settle(&bob);
    struct party *gone[] = { &alice, &bob };
    for (size_t i = 0; i < 2; i++)
        if (contains(gone[i]->seen, gone[i]->nseen, "secret-mailbox"))
            fail_msg("%s received an address", gone[i]->c.name);
    close_party(&alice);
    close_party(&bob);

    /* Both confirm by reply; then x and o play by mail. */
    for (int i = 0; i < 2; i++) {
        struct wt_mail *c = mail_with(&mb, addr[i], "confirm your address");
        mail_in(&eve, c, json_array(), "confirmed");
        wt_mail_free(c);
    }
    /* x is awaited: its first game mail (the one saying it is confirmed,
     * or its turn) carries the tag to answer */
    struct wt_mail *m = mail_with(&mb, addr[0], NULL);
    mail_in(&eve, m, json_pack("[s]", "mark 4"), "applied");
    wt_mail_free(m);
    m = mail_with(&mb, addr[1], "your move");
    mail_in(&eve, m, json_pack("[s]", "mark 0"), "applied");
    wt_mail_free(m);
    wt_mail_free(mail_with(&mb, addr[1], "your orders"));
    m = mail_with(&mb, addr[0], "your move");

    /* The SMTP server goes away: x's next reply is applied, and its answer
     * and o's turn mail are given up after their retries. */
    int sink = wt_mailbox_stop(&mb);
    assert_true(sink >= 0 && WIFEXITED(sink) && WEXITSTATUS(sink) == 0);
    long long before = mail_given_up(s.port);
    if (before < 0)
        fail_msg("GET /metrics has no warroom_mail..given_up.. counter");
    mail_in(&eve, m, json_pack("[s]", "mark 8"), "applied");
    wt_mail_free(m);
    long deadline = now_ms() + 30000;
    long long v = before;
    while (v < before + 2 && now_ms() < deadline) {
        poll(NULL, 0, 20);      /* the next look at the counter: a bounded poll */
        v = mail_given_up(s.port);
    }
    if (v < before + 2)
        fail_msg("the mails to a stopped SMTP server were not given up (%lld, then %lld)",
                 before, v);

    /* Lists, exports, pages: no address. */
    wt_send(&carol.c, "{s:s}", "type", "list");
    json_decref(got(&carol, "games"));
    wt_send(&carol.c, "{s:s, s:s}", "type", "export", "game", game);
    json_decref(got(&carol, "record"));
    static char body[65536];
    static const char *const pages[] = { "/games", "/metrics", "/healthz" };
    for (size_t i = 0; i < 3; i++) {
        int status = 0;
        assert_int_equal(wt_http_get(s.port, pages[i], &status, body, sizeof body), 0);
        assert_int_equal(status, 200);
        for (int k = 0; k < 2; k++)
            if (strstr(body, addr[k]) || strstr(body, "secret-mailbox"))
                fail_msg("address %d is in GET %s", k, pages[i]);
    }
    /* The states as a join gives them now: the seat's own, the other
     * seat's, a spectator's. */
    open_party(&alice, "alice", s.port);
    open_party(&bob, "bob", s.port);
    wt_send(&alice.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", token);
    json_decref(got(&alice, "state"));
    wt_send(&bob.c, "{s:s, s:s, s:s}", "type", "join", "game", game, "token", btoken);
    json_decref(got(&bob, "state"));
    wt_send(&bob.c, "{s:s, s:s}", "type", "export", "game", game);
    json_decref(got(&bob, "record"));
    wt_send(&carol.c, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_decref(got(&carol, "state"));
    settle(&alice);
    settle(&bob);
    settle(&carol);
    settle(&eve);
    /* Nobody's messages hold an address: not the other seat's, not the
     * spectator's, not the MTA's answers, not even the seat's own state,
     * which says only that its mail is confirmed. */
    struct party *who[] = { &alice, &bob, &carol, &eve };
    for (size_t i = 0; i < 4; i++) {
        assert_true(who[i]->nseen > 0);
        if (contains(who[i]->seen, who[i]->nseen, "secret-mailbox"))
            fail_msg("%s received an address", who[i]->c.name);
    }
    struct party *seats[] = { &alice, &bob };
    for (size_t i = 0; i < 2; i++) {
        assert_non_null(seats[i]->c.state);
        /* docs/protocol.md: no state says even whether there is an
         * address (notify's answers do); the specification of issue 17
         * allowed the seat's own to say it (server.mail), in words */
        const char *mail = str(json_object_get(seats[i]->c.state, "server"), "mail");
        if (mail != NULL && strcmp(mail, "confirmed") != 0)
            fail_msg("%s's own state says server.mail %s, want confirmed", seats[i]->c.name,
                     mail);
    }
    assert_non_null(carol.c.state);
    assert_null(json_object_get(json_object_get(carol.c.state, "server"), "mail"));

    close_party(&alice);
    close_party(&bob);
    close_party(&carol);
    close_party(&eve);
    int status = wt_server_stop(&s, SIGTERM, 10000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The log, at debug level, tells of the game and its mails, never of
     * an address. */
    size_t n = 0;
    char *log = wt_server_log(&s, &n);
    assert_non_null(log);
    assert_non_null(strstr(log, game));
    if (contains(log, n, "secret-mailbox"))
        fail_msg("an address is in the server's log:\n%s", log);
    free(log);
    wt_server_cleanup(&s);
    wt_mailbox_cleanup(&mb);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secrets_stay_secret),
        cmocka_unit_test(test_nobody_acts_for_another),
        cmocka_unit_test(test_finished_game_accepts_nothing),
        cmocka_unit_test(test_tls),
        cmocka_unit_test(test_webhook_destinations),
        cmocka_unit_test(test_silent_hooks_take_only_their_share),
        cmocka_unit_test(test_mail_addresses_stay_secret),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
