#define _GNU_SOURCE
/*
 * test_server_games.c - the real warroomd on 127.0.0.1 driven by websocket
 * clients: a tictactoe game between two players with a spectator, refusals
 * (wrong token, spectator, not joined, hello first, bad fields), a re-sent
 * command applied once, a client that drops and resumes with sync, the
 * server killed with SIGKILL mid-game and restarted with every acknowledged
 * command still there, a Waterloo game's first turns with a combat whose
 * retreat is chosen by the other seat, a webhook received when the turn
 * passes to a seat that is not connected, and a forfeit on time whose
 * reason is in the state, its event, the webhook, the notify command and
 * the state after a restart.
 *
 * Every client tracks its state by applying each patch it receives; at the
 * end, all of them must hold the same state as a fresh `join`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "wsclient.h"

#ifndef WARROOM_SCENARIO_DIR
#error "WARROOM_SCENARIO_DIR must be defined by the build"
#endif

#define T 5000      /* ms to wait for any one answer */

/* The webhook test's receiver is on loopback, which webhooks may reach only
 * when the operator allows it. */
static const char *const server_args[] = { "--scenarios", WARROOM_SCENARIO_DIR,
                                           "--webhook-allow", "127.0.0.1", NULL };

static int setup(void **state)
{
    return wt_group_start(state, server_args);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void expect_error(struct wt_client *c, const char *code)
{
    json_t *e = wt_expect(c, "error", T);
    if (e == NULL)
        fail_msg("%s: no error %s", c->name, code);
    if (strcmp(str(e, "code"), code) != 0)
        fail_msg("%s: error %s (%s), want %s", c->name, str(e, "code"), str(e, "message"), code);
    json_decref(e);
}

/* A tictactoe game: a creates as x, b claims o with the invite, c watches. */
struct ttt {
    struct wt_client a, b, c;
    char game[32], token_x[80], token_o[80];
    int seq_a, seq_b;
};

static void ttt_start(struct wt_server *s, struct ttt *t, int with_spectator)
{
    memset(t, 0, sizeof *t);
    assert_int_equal(wt_open(&t->a, "alice", s->port), 0);
    assert_int_equal(wt_open(&t->b, "bob", s->port), 0);
    wt_send(&t->a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = wt_expect(&t->a, "created", T);
    assert_non_null(created);
    snprintf(t->game, sizeof t->game, "%s", str(created, "game"));
    snprintf(t->token_x, sizeof t->token_x, "%s", str(created, "token"));
    const char *invite = json_string_value(json_object_get(json_object_get(created, "invites"), "o"));
    assert_non_null(invite);
    assert_int_equal(strlen(t->token_x), 64);
    wt_send(&t->b, "{s:s, s:s}", "type", "claim", "invite", invite);
    json_t *claimed = wt_expect(&t->b, "claimed", T);
    assert_non_null(claimed);
    assert_string_equal(str(claimed, "seat"), "o");
    snprintf(t->token_o, sizeof t->token_o, "%s", str(claimed, "token"));
    /* The invite works once. */
    wt_send(&t->b, "{s:s, s:s}", "type", "claim", "invite", invite);
    expect_error(&t->b, "bad_invite");
    json_decref(created);
    json_decref(claimed);
    if (with_spectator) {
        assert_int_equal(wt_open(&t->c, "carol", s->port), 0);
        wt_send(&t->c, "{s:s, s:s, s:b}", "type", "join", "game", t->game, "spectate", 1);
        json_t *st = wt_expect(&t->c, "state", T);
        assert_non_null(st);
        assert_true(json_is_null(json_object_get(st, "seat")));
        json_decref(st);
    }
}

/* Mark a cell as x (a) or o (b); expect the ack with the next version. */
static long long mark(struct ttt *t, struct wt_client *who, int cell)
{
    int seq = who == &t->a ? ++t->seq_a : ++t->seq_b;
    wt_send(who, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t->game, "seq", seq,
            "cmd", "type", "mark", "cell", cell);
    json_t *ack = wt_expect(who, "ack", T);
    if (ack == NULL)
        fail_msg("%s: no ack for cell %d", who->name, cell);
    assert_int_equal(json_integer_value(json_object_get(ack, "seq")), seq);
    long long v = json_integer_value(json_object_get(ack, "version"));
    json_decref(ack);
    return v;
}

static void same_state(struct wt_client *x, struct wt_client *y)
{
    if (!json_equal(x->state, y->state) || x->version != y->version) {
        char *a = json_dumps(x->state, JSON_COMPACT), *b = json_dumps(y->state, JSON_COMPACT);
        fail_msg("%s v%lld %s != %s v%lld %s", x->name, x->version, a, y->name, y->version, b);
    }
}

static void test_tictactoe_with_spectator(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    /* x: 4, 0, 8 wins the diagonal; o: 1, 2. */
    assert_int_equal(mark(&t, &t.a, 4), 1);
    assert_int_equal(mark(&t, &t.b, 1), 2);
    assert_int_equal(mark(&t, &t.a, 0), 3);
    assert_int_equal(mark(&t, &t.b, 2), 4);
    /* Out of turn: o again. */
    wt_send(&t.b, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq", 99,
            "cmd", "type", "mark", "cell", 5);
    expect_error(&t.b, "not_your_turn");
    assert_int_equal(mark(&t, &t.a, 8), 5);
    for (struct wt_client *c = &t.a; c <= &t.c; c++) {
        assert_int_equal(wt_wait_version(c, 5, T), 0);
        assert_int_equal(c->bad_patches, 0);
    }
    same_state(&t.a, &t.b);
    same_state(&t.a, &t.c);
    assert_string_equal(str(t.c.state, "winner"), "x");
    assert_string_equal(str(t.c.state, "board"), "xoo.x...x");
    /* The spectator saw every move as a patch. */
    assert_int_equal(t.c.patches, 5);
    /* A fresh join gives what the patches built. */
    struct wt_client d;
    assert_int_equal(wt_open(&d, "dave", s->port), 0);
    wt_send(&d, "{s:s, s:s, s:b}", "type", "join", "game", t.game, "spectate", 1);
    json_t *st = wt_expect(&d, "state", T);
    assert_string_equal(str(st, "status"), "finished");
    json_decref(st);
    same_state(&t.c, &d);
    /* Finished: no more moves. */
    wt_send(&t.b, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq", 100,
            "cmd", "type", "mark", "cell", 3);
    expect_error(&t.b, "game_over");
    wt_close(&d);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

/* The write path (server/conn.c): after each commit, one write per
 * connection that must hear of it, made straight from the flush; none
 * from a WRITEABLE callback, whose POLLOUT costs libuv two epoll_ctl()
 * calls each way. Moves are made one at a time (each waits for its ack),
 * so each commit carries one move: its ack and patch to the mover, its
 * patch to the other player and to the spectator. */
#define WRITES_DIRECT "warroom_websocket_writes_total{path=\"direct\"}"
#define WRITES_WRITEABLE "warroom_websocket_writes_total{path=\"writeable\"}"

static void test_one_write_per_commit(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    long long d0 = wt_metric(s->port, WRITES_DIRECT);
    long long w0 = wt_metric(s->port, WRITES_WRITEABLE);
    assert_true(d0 >= 0 && w0 >= 0);
    static const int cells[] = { 4, 1, 0, 2 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mark(&t, i % 2 ? &t.b : &t.a, cells[i]), i + 1);
        for (struct wt_client *c = &t.a; c <= &t.c; c++)
            assert_int_equal(wt_wait_version(c, i + 1, T), 0);
    }
    long long d1 = wt_metric(s->port, WRITES_DIRECT);
    long long w1 = wt_metric(s->port, WRITES_WRITEABLE);
    assert_int_equal(w1 - w0, 0);
    assert_int_equal(d1 - d0, 4 * 3);
    for (struct wt_client *c = &t.a; c <= &t.c; c++)
        assert_int_equal(c->bad_patches, 0);
    same_state(&t.a, &t.c);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

static void test_refusals(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    /* The spectator cannot act. */
    wt_send(&t.c, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq", 1,
            "cmd", "type", "mark", "cell", 0);
    expect_error(&t.c, "spectator");
    /* A wrong token opens nothing. */
    struct wt_client e;
    assert_int_equal(wt_open(&e, "eve", s->port), 0);
    char wrong[65];
    memcpy(wrong, t.token_x, 65);
    wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
    wt_send(&e, "{s:s, s:s, s:s}", "type", "join", "game", t.game, "token", wrong);
    expect_error(&e, "bad_token");
    wt_send(&e, "{s:s, s:s, s:s}", "type", "join", "game", t.game, "token", "x");
    expect_error(&e, "bad_token");
    /* Not joined: no acting. */
    wt_send(&e, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq", 1,
            "cmd", "type", "mark", "cell", 0);
    expect_error(&e, "not_joined");
    /* Shapes. */
    wt_send_text(&e, "{\"type\":\"join\",\"game\":7}");
    expect_error(&e, "bad_message");
    wt_send_text(&e, "{\"type\":\"join\",\"game\":\"g\",\"colour\":\"red\"}");
    expect_error(&e, "bad_message");
    wt_send_text(&e, "{\"type\":\"dance\"}");
    expect_error(&e, "bad_message");
    wt_send_text(&e, "[]");
    expect_error(&e, "bad_json");
    wt_send_text(&e, "{\"type\":\"join\",\"game\":\"nope\",\"spectate\":true}");
    expect_error(&e, "no_such_game");
    wt_send(&e, "{s:s, s:s}", "type", "create", "ruleset", "chess");
    expect_error(&e, "no_such_ruleset");
    wt_send(&e, "{s:s, s:s, s:s}", "type", "create", "ruleset", "waterloo", "scenario", "../etc");
    expect_error(&e, "no_such_scenario");
    /* A bad rules command: the ruleset's reason comes back. */
    wt_send(&t.a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq", 1,
            "cmd", "type", "mark", "cell", 9);
    expect_error(&t.a, "bad_square");
    wt_close(&e);
    /* hello first */
    struct wt_client f;
    memset(&f, 0, sizeof f);
    f.name = "frank";
    f.fd = wt_ws_connect(s->port);
    assert_true(f.fd >= 0);
    wt_send(&f, "{s:s, s:s, s:b}", "type", "join", "game", t.game, "spectate", 1);
    expect_error(&f, "hello_first");
    wt_send(&f, "{s:s, s:i}", "type", "hello", "protocol", 9);
    expect_error(&f, "unsupported_protocol");
    assert_int_equal(wt_expect_close(&f, 5000), 1008);     /* and nothing more is said */
    wt_close(&f);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

/* Messages longer than lws's receive buffer (1 KiB) arrive in pieces that
 * the server joins: a 5,000-byte and a 60,000-byte hello are answered. */
static void test_long_messages(void **state)
{
    struct wt_server *s = *state;
    struct wt_client c;
    assert_int_equal(wt_open(&c, "long", s->port), 0);
    for (size_t n = 5000; n <= 60000; n += 55000) {
        char *name = malloc(n + 1);
        assert_non_null(name);
        memset(name, 'n', n);
        name[n] = '\0';
        wt_send(&c, "{s:s, s:i, s:s}", "type", "hello", "protocol", 1, "client", name);
        free(name);
        json_t *w = wt_expect(&c, "welcome", T);
        assert_non_null(w);
        json_decref(w);
    }
    wt_close(&c);
}

static void test_resent_command_applied_once(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    char text[256];
    snprintf(text, sizeof text, "{\"type\":\"command\",\"game\":\"%s\",\"seq\":7,"
             "\"cmd\":{\"type\":\"mark\",\"cell\":4}}", t.game);
    wt_send_text(&t.a, text);
    wt_send_text(&t.a, text);
    json_t *a1 = wt_expect(&t.a, "ack", T), *a2 = wt_expect(&t.a, "ack", T);
    assert_non_null(a1);
    assert_non_null(a2);
    assert_int_equal(json_integer_value(json_object_get(a1, "version")), 1);
    assert_int_equal(json_integer_value(json_object_get(a2, "version")), 1);
    json_decref(a1);
    json_decref(a2);
    /* o moves; the spectator saw exactly two patches. */
    t.seq_b = 0;
    assert_int_equal(mark(&t, &t.b, 0), 2);
    assert_int_equal(wt_wait_version(&t.c, 2, T), 0);
    assert_int_equal(t.c.patches, 2);
    assert_string_equal(str(t.c.state, "board"), "o...x....");
    /* An old seq the server answered is answered again, unchanged. */
    wt_send_text(&t.a, text);
    json_t *a3 = wt_expect(&t.a, "ack", T);
    assert_int_equal(json_integer_value(json_object_get(a3, "version")), 1);
    json_decref(a3);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

static void test_drop_and_resume(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    mark(&t, &t.a, 0);
    mark(&t, &t.b, 1);
    assert_int_equal(wt_wait_version(&t.b, 2, T), 0);
    /* Bob drops, keeping the state he had. */
    json_t *kept = json_deep_copy(t.b.state);
    long long kept_version = t.b.version;
    wt_close(&t.b);
    mark(&t, &t.a, 4);              /* version 3: o is awaited, not connected */
    assert_int_equal(wt_wait_version(&t.c, 3, T), 0);
    /* Bob comes back: join with his token, then sync from what he kept. */
    assert_int_equal(wt_open(&t.b, "bob", s->port), 0);
    wt_send(&t.b, "{s:s, s:s, s:s}", "type", "join", "game", t.game, "token", t.token_o);
    json_t *st = wt_expect(&t.b, "state", T);
    assert_non_null(st);
    assert_string_equal(str(st, "seat"), "o");
    json_decref(st);
    json_decref(t.b.state);
    t.b.state = kept;
    t.b.version = kept_version;
    wt_send(&t.b, "{s:s, s:s, s:i}", "type", "sync", "game", t.game, "since", (int)kept_version);
    json_t *p = wt_expect(&t.b, "patch", T);
    assert_non_null(p);
    assert_int_equal(json_integer_value(json_object_get(p, "from")), 2);
    json_decref(p);
    assert_int_equal(t.b.version, 3);
    same_state(&t.b, &t.c);
    same_state(&t.b, &t.a);
    /* Already current: synced. */
    wt_send(&t.b, "{s:s, s:s, s:i}", "type", "sync", "game", t.game, "since", 3);
    json_t *sy = wt_expect(&t.b, "synced", T);
    assert_non_null(sy);
    json_decref(sy);
    /* Bob plays on, everyone agrees. */
    t.seq_b = 10;
    mark(&t, &t.b, 8);
    assert_int_equal(wt_wait_version(&t.a, 4, T), 0);
    assert_int_equal(wt_wait_version(&t.c, 4, T), 0);
    same_state(&t.a, &t.b);
    same_state(&t.a, &t.c);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

/* SIGKILL mid-game, restart on the same store: every acknowledged command
 * is there, and a re-sent seq is still answered, not applied again. */
static void test_sigkill_and_restart(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, server_args), 0);
    struct ttt t;
    ttt_start(&s, &t, 0);
    mark(&t, &t.a, 4);
    mark(&t, &t.b, 0);
    long long v = mark(&t, &t.a, 8);
    assert_int_equal(v, 3);
    kill(s.pid, SIGKILL);
    int status = wt_server_stop(&s, SIGKILL, 10000);
    assert_true(WIFSIGNALED(status));
    wt_close(&t.a);
    wt_close(&t.b);
    assert_int_equal(wt_server_restart(&s, server_args), 0);
    assert_int_equal(wt_open(&t.a, "alice", s.port), 0);
    assert_int_equal(wt_open(&t.b, "bob", s.port), 0);
    wt_send(&t.a, "{s:s, s:s, s:s}", "type", "join", "game", t.game, "token", t.token_x);
    wt_send(&t.b, "{s:s, s:s, s:s}", "type", "join", "game", t.game, "token", t.token_o);
    json_t *sa = wt_expect(&t.a, "state", T), *sb = wt_expect(&t.b, "state", T);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_int_equal(json_integer_value(json_object_get(sa, "version")), 3);
    assert_string_equal(str(json_object_get(sa, "state"), "board"), "o...x...x");
    json_decref(sa);
    json_decref(sb);
    /* x's last command, re-sent after the crash: the same answer. */
    wt_send(&t.a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", t.game, "seq",
            t.seq_a, "cmd", "type", "mark", "cell", 8);
    json_t *ack = wt_expect(&t.a, "ack", T);
    assert_non_null(ack);
    assert_int_equal(json_integer_value(json_object_get(ack, "version")), 3);
    json_decref(ack);
    /* And the game goes on. */
    assert_int_equal(mark(&t, &t.b, 2), 4);
    assert_int_equal(wt_wait_version(&t.a, 4, T), 0);
    same_state(&t.a, &t.b);
    /* A graceful stop closes the clients with 1001 going away. */
    kill(s.pid, SIGTERM);
    assert_int_equal(wt_expect_close(&t.a, T), 1001);
    wt_close(&t.a);
    wt_close(&t.b);
    status = wt_server_stop(&s, 0, 10000);      /* already signalled: just wait */
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wt_server_cleanup(&s);
}

static void test_webhook_when_turn_passes(void **state)
{
    struct wt_server *s = *state;
    int hport = 0, lfd = wt_http_listen(&hport);
    assert_true(lfd >= 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hooks/bob-secret", hport);
    struct ttt t;
    memset(&t, 0, sizeof t);
    assert_int_equal(wt_open(&t.a, "alice", s->port), 0);
    assert_int_equal(wt_open(&t.b, "bob", s->port), 0);
    wt_send(&t.a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *created = wt_expect(&t.a, "created", T);
    snprintf(t.game, sizeof t.game, "%s", str(created, "game"));
    const char *invite = json_string_value(json_object_get(json_object_get(created, "invites"), "o"));
    wt_send(&t.b, "{s:s, s:s, s:s}", "type", "claim", "invite", invite, "webhook", url);
    json_t *claimed = wt_expect(&t.b, "claimed", T);
    assert_non_null(claimed);
    json_decref(created);
    json_decref(claimed);
    /* Bob leaves (the server knows at once), then Alice moves: o is awaited. */
    wt_send(&t.b, "{s:s, s:s}", "type", "leave", "game", t.game);
    json_t *left = wt_expect(&t.b, "left", T);
    assert_non_null(left);
    json_decref(left);
    wt_close(&t.b);
    mark(&t, &t.a, 4);
    char path[256] = "";
    char *body = wt_http_receive_post(lfd, 10000, path, sizeof path);
    if (body == NULL)
        fail_msg("no webhook arrived");
    assert_string_equal(path, "/hooks/bob-secret");
    json_t *b = json_loads(body, 0, NULL);
    assert_non_null(b);
    assert_string_equal(str(b, "event"), "your_turn");
    assert_string_equal(str(b, "seat"), "o");
    assert_string_equal(str(b, "game"), t.game);
    assert_int_equal(json_integer_value(json_object_get(b, "version")), 1);
    /* what the seat must send, and every decision awaited (tictactoe's
     * state has no awaiting of its own: the body has the server's) */
    const char *what = str(b, "what");
    json_t *aw = json_object_get(b, "awaiting");
    if (what == NULL || strcmp(what, "mark") != 0 || json_object_size(aw) != 1 ||
        str(aw, "o") == NULL || strcmp(str(aw, "o"), "mark") != 0)
        fail_msg("the webhook body does not say what o must send: %s", body);
    json_decref(b);
    free(body);
    close(lfd);
    wt_close(&t.a);
}

/* --- a forfeit names its reason --------------------------------------------- */

/* The lines of file (NULL while it does not exist); caller frees. */
static char *slurp(const char *file)
{
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = buf ? fread(buf, 1, 65535, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* A seat that lets its deadline pass forfeits with a reason: in the server
 * section of the full state every connection receives, in that state's
 * forfeit event, in the webhook and in the notify command's environment,
 * and again after a restart. */
static void test_forfeit_reason(void **state)
{
    (void)state;
    char dir[] = "/tmp/wt-forfeit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char script[300], out[300];
    snprintf(script, sizeof script, "%s/notify.sh", dir);
    snprintf(out, sizeof out, "%s/notified.txt", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\necho \"$WARROOM_EVENT|$WARROOM_SEAT|$WARROOM_REASON\" >> '%s'\n", out);
    fclose(f);
    assert_int_equal(chmod(script, 0755), 0);
    const char *const args[] = { "--scenarios", WARROOM_SCENARIO_DIR, "--webhook-allow",
                                 "127.0.0.1", "--notify-cmd", script, NULL };
    struct wt_server srv;
    assert_int_equal(wt_server_start(&srv, args), 0);
    int hport = 0, lfd = wt_http_listen(&hport);
    assert_true(lfd >= 0);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hooks/o", hport);
    struct ttt t;
    memset(&t, 0, sizeof t);
    assert_int_equal(wt_open(&t.a, "alice", srv.port), 0);
    assert_int_equal(wt_open(&t.b, "bob", srv.port), 0);
    /* two seconds a decision: x marks at once, o lets its time pass */
    wt_send(&t.a, "{s:s, s:s, s:s, s:{s:i}}", "type", "create", "ruleset", "tictactoe", "seat",
            "x", "options", "deadline_seconds", 2);
    json_t *created = wt_expect(&t.a, "created", T);
    assert_non_null(created);
    snprintf(t.game, sizeof t.game, "%s", str(created, "game"));
    const char *invite = json_string_value(json_object_get(json_object_get(created, "invites"), "o"));
    wt_send(&t.b, "{s:s, s:s, s:s}", "type", "claim", "invite", invite, "webhook", url);
    json_t *claimed = wt_expect(&t.b, "claimed", T);
    assert_non_null(claimed);
    json_decref(created);
    json_decref(claimed);
    wt_close(&t.b);
    mark(&t, &t.a, 4);
    /* 1) the state every connection receives, with its server section's
     *    time left while o is awaited, then the forfeit and its reason */
    json_t *st = NULL;
    int saw_left = 0;
    for (;;) {
        st = wt_expect(&t.a, "state", 20000);
        if (st == NULL)
            fail_msg("no forfeit state");
        json_t *sec = json_object_get(json_object_get(st, "state"), "server");
        saw_left |= json_is_integer(json_object_get(json_object_get(sec, "deadlines_left"), "x"));
        if (strcmp(str(st, "status"), "finished") == 0)
            break;
        json_decref(st);
    }
    assert_true(saw_left);
    json_t *sec = json_object_get(json_object_get(st, "state"), "server");
    assert_string_equal(str(sec, "forfeit"), "o");
    const char *why = str(sec, "forfeit_reason");
    if (why == NULL || strncmp(why, "o: no decision (mark) in 2 s (deadline 20", 41) != 0 ||
        strstr(why, " UTC)") == NULL)
        fail_msg("the forfeit's reason in the state: %s", why ? why : "(none)");
    char reason[256];
    snprintf(reason, sizeof reason, "%s", why);
    json_t *evs = json_object_get(st, "events");
    json_t *ev = json_array_get(evs, 0);
    if (json_array_size(evs) != 1 || strcmp(str(ev, "type"), "forfeit") != 0 ||
        strcmp(str(ev, "seat"), "o") != 0 || strcmp(str(ev, "reason"), reason) != 0)
        fail_msg("the forfeit state's events: %s", json_dumps(evs, JSON_COMPACT));
    assert_null(json_object_get(sec, "deadlines_left"));
    json_decref(st);
    /* 2) the webhook: your_turn, perhaps the reminder, then the forfeit */
    json_t *b = NULL;
    for (int k = 0; k < 4 && b == NULL; k++) {
        char path[256] = "";
        char *body = wt_http_receive_post(lfd, 10000, path, sizeof path);
        if (body == NULL)
            fail_msg("no deadline_expired webhook");
        json_t *j = json_loads(body, 0, NULL);
        free(body);
        if (j && strcmp(str(j, "event"), "deadline_expired") == 0)
            b = j;
        else
            json_decref(j);
    }
    assert_non_null(b);
    assert_string_equal(str(b, "seat"), "o");
    assert_string_equal(str(b, "reason"), reason);
    json_decref(b);
    close(lfd);
    /* 3) the notify command's environment */
    char line[400];
    snprintf(line, sizeof line, "deadline_expired|o|%s\n", reason);
    char *got = NULL;
    for (int k = 0; k < 500; k++) {
        free(got);
        got = slurp(out);
        if (got && strstr(got, "deadline_expired"))
            break;
        usleep(20000);
    }
    if (got == NULL || strstr(got, line) == NULL)
        fail_msg("the notify command did not get WARROOM_REASON: want '%s' in:\n%s", line,
                 got ? got : "(nothing)");
    free(got);
    wt_close(&t.a);
    /* 4) the reason survives a restart: a spectator reads it again */
    assert_int_equal(wt_server_stop(&srv, SIGTERM, 10000) >= 0, 1);
    assert_int_equal(wt_server_restart(&srv, args), 0);
    struct wt_client c;
    assert_int_equal(wt_open(&c, "carol", srv.port), 0);
    wt_send(&c, "{s:s, s:s, s:b}", "type", "join", "game", t.game, "spectate", 1);
    st = wt_expect(&c, "state", T);
    assert_non_null(st);
    sec = json_object_get(json_object_get(st, "state"), "server");
    assert_string_equal(str(sec, "forfeit_reason"), reason);
    assert_null(json_object_get(st, "events"));
    json_decref(st);
    wt_close(&c);
    assert_true(wt_server_stop(&srv, SIGTERM, 10000) >= 0);
    wt_server_cleanup(&srv);
    unlink(out);
    unlink(script);
    rmdir(dir);
}

/* --- Waterloo -------------------------------------------------------------- */

static void command(struct wt_client *c, const char *game, int seq, const char *cmd_text)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"type\":\"command\",\"game\":\"%s\",\"seq\":%d,\"cmd\":%s}", game,
             seq, cmd_text);
    wt_send_text(c, text);
}

static void ok(struct wt_client *c, const char *game, int *seq, const char *cmd_text)
{
    command(c, game, ++*seq, cmd_text);
    json_t *ack = wt_expect(c, "ack", T);
    if (ack == NULL) {
        json_t *e = wt_expect(c, "error", 10);
        fail_msg("%s: %s refused: %s %s", c->name, cmd_text, e ? str(e, "code") : "(nothing)",
                 e ? str(e, "message") : "");
    }
    json_decref(ack);
}

/* Retreat paths known to be open in this position (see below). */
static const char *retreat_path(const char *unit)
{
    static const struct { const char *unit, *path; } t[] = {
        { "fr-jerome", "[\"J-40\",\"K-40\"]" }, { "fr-foy", "[\"J-41\",\"K-41\"]" },
        { "aa-picton", "[\"G-40\",\"F-40\"]" }, { "aa-cooke", "[\"G-42\",\"F-42\"]" },
    };
    for (size_t i = 0; i < 4; i++)
        if (strcmp(t[i].unit, unit) == 0)
            return t[i].path;
    return NULL;
}

/* Export the game and replay the record offline with `warroom replay`: it
 * must succeed and end in the units' positions the client tracked. */
static void export_and_replay(struct wt_server *s, struct wt_client *c, const char *game)
{
    wt_send(c, "{s:s, s:s}", "type", "export", "game", game);
    json_t *rec = wt_expect(c, "record", T);
    assert_non_null(rec);
    char path[400], out[420];
    snprintf(path, sizeof path, "%s/%s.ndjson", s->dir, game);
    snprintf(out, sizeof out, "%s.out", path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(str(rec, "record"), f);
    fclose(f);
    json_decref(rec);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s replay --json %s > %s", WARROOM_CLIENT_PATH, path, out);
    assert_int_equal(system(cmd), 0);
    /* The verdict line (a running game: no seed, no die verified), then
     * the final public state. */
    char line[256];
    f = fopen(out, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    if (strncmp(line, "record checked: ", 16) != 0 || strstr(line, " 0 dice verified, ") == NULL)
        fail_msg("replay's verdict: %s", line);
    json_t *res = json_loadf(f, 0, NULL);
    fclose(f);
    assert_non_null(res);
    json_t *units = json_object_get(res, "units");
    if (!json_equal(units, json_object_get(c->state, "units")))
        fail_msg("the replayed record does not end where the game is");
    json_decref(res);
    unlink(out);
    unlink(path);
}

/* One game of test/small: set-up, a refused move, two attacks, the results
 * carried out. Returns 1 when the allied seat chose a French retreat. */
static int waterloo_game(struct wt_server *s)
{
    struct wt_client fr, al, sp;
    int sf = 0, sa = 0, other_seat_retreat = 0;
    assert_int_equal(wt_open(&fr, "french", s->port), 0);
    assert_int_equal(wt_open(&al, "allied", s->port), 0);
    assert_int_equal(wt_open(&sp, "spectator", s->port), 0);
    wt_send(&fr, "{s:s, s:s, s:s, s:s}", "type", "create", "ruleset", "waterloo", "scenario",
            "test/small", "seat", "french");
    json_t *created = wt_expect(&fr, "created", T);
    assert_non_null(created);
    char game[32];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    wt_send(&al, "{s:s, s:s}", "type", "claim", "invite",
            json_string_value(json_object_get(json_object_get(created, "invites"), "allied")));
    json_decref(created);
    json_t *claimed = wt_expect(&al, "claimed", T);
    assert_non_null(claimed);
    json_decref(claimed);
    wt_send(&sp, "{s:s, s:s, s:b}", "type", "join", "game", game, "spectate", 1);
    json_decref(wt_expect(&sp, "state", T));

    ok(&fr, game, &sf, "{\"type\":\"end_setup\"}");
    command(&fr, game, ++sf, "{\"type\":\"end_setup\"}");
    expect_error(&fr, "not_your_turn");
    ok(&al, game, &sa, "{\"type\":\"end_setup\"}");
    /* Entering the zones of Picton and Cooke at I-40 stops Jerome there. */
    command(&fr, game, ++sf, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"J-40\","
                             "\"I-40\",\"I-39\"]}");
    expect_error(&fr, "zoc_stop");
    ok(&fr, game, &sf, "{\"type\":\"move\",\"unit\":\"fr-jerome\",\"path\":[\"J-40\",\"I-40\"]}");
    ok(&fr, game, &sf, "{\"type\":\"move\",\"unit\":\"fr-foy\",\"path\":[\"J-41\",\"I-41\"]}");
    ok(&fr, game, &sf, "{\"type\":\"end_phase\"}");
    /* Rules 2: battles one at a time, the obligations judged when the phase ends. */
    command(&fr, game, ++sf, "{\"type\":\"end_phase\"}");
    expect_error(&fr, "must_attack");
    ok(&fr, game, &sf, "{\"type\":\"declare\",\"battles\":[{\"attackers\":[\"fr-jerome\"],"
                       "\"defenders\":[\"aa-picton\"]},{\"attackers\":[\"fr-foy\"],"
                       "\"defenders\":[\"aa-cooke\"]}]}");
    for (int b = 0; b < 2; b++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "{\"type\":\"resolve\",\"battle\":%d}", b);
        ok(&fr, game, &sf, cmd);
        /* Carry out retreats until the game awaits something else. */
        for (int guard = 0; guard < 4; guard++) {
            assert_int_equal(wt_wait_version(&fr, fr.version, T), 0);
            wt_drain(&fr, 50);
            json_t *aw = json_object_get(fr.state, "awaiting");
            const char *what = str(aw, "what"), *seat = str(aw, "seat");
            if (what == NULL || strcmp(what, "retreat") != 0)
                break;
            const char *unit = NULL, *key;
            json_t *u;
            json_object_foreach(json_object_get(fr.state, "units"), key, u)
                if (json_is_true(json_object_get(u, "retreat")))
                    unit = key;
            assert_non_null(unit);
            snprintf(cmd, sizeof cmd, "{\"type\":\"retreat\",\"unit\":\"%s\",\"path\":%s}", unit,
                     retreat_path(unit));
            if (strcmp(seat, "allied") == 0) {
                /* The defender chooses the attacker's retreat: not the mover. */
                command(&fr, game, ++sf, cmd);
                expect_error(&fr, "not_your_turn");
                ok(&al, game, &sa, cmd);
                other_seat_retreat = 1;
            } else {
                ok(&fr, game, &sf, cmd);
            }
        }
    }
    assert_int_equal(wt_wait_version(&sp, fr.version, T), 0);
    assert_int_equal(wt_wait_version(&al, fr.version, T), 0);
    same_state(&fr, &sp);
    same_state(&fr, &al);
    assert_int_equal(fr.bad_patches + al.bad_patches + sp.bad_patches, 0);
    json_t *dice = json_object_get(sp.state, "dice");
    assert_int_equal(strlen(str(dice, "commitment")), 64);
    assert_null(json_object_get(dice, "seed"));        /* secret while the game runs */
    /* The record of a running game: no seed, the rolls it made. */
    export_and_replay(s, &fr, game);
    wt_close(&fr);
    wt_close(&al);
    wt_close(&sp);
    return other_seat_retreat;
}

static void test_waterloo_first_turn(void **state)
{
    struct wt_server *s = *state;
    /* The dice are the server's: play fresh games until one of them has the
     * attacker thrown back (A-Back-2 at 1-1 or 1-2: at least 7 chances in 9
     * a game), so the allied seat must choose a French retreat. */
    int done = 0;
    for (int i = 0; i < 25 && !done; i++)
        done = waterloo_game(s);
    assert_true(done);
}

/* setup: every member, a seat or a spectator, gets the game's ruleset,
 * its scenario as stored and its options; anyone else is refused. */
static void test_setup(void **state)
{
    struct wt_server *s = *state;
    struct ttt t;
    ttt_start(s, &t, 1);
    struct wt_client *who[2] = { &t.a, &t.c };
    for (int i = 0; i < 2; i++) {
        wt_send(who[i], "{s:s, s:s, s:s}", "type", "setup", "game", t.game, "id", "su");
        json_t *su = wt_expect(who[i], "setup", T);
        if (su == NULL)
            fail_msg("%s: no setup answer", who[i]->name);
        assert_string_equal(str(su, "game"), t.game);
        assert_string_equal(str(su, "ruleset"), "tictactoe");
        assert_string_equal(str(su, "id"), "su");
        assert_true(json_is_null(json_object_get(su, "scenario")));
        assert_true(json_is_object(json_object_get(su, "options")));
        assert_int_equal(json_object_size(json_object_get(su, "options")), 0);
        json_decref(su);
    }
    struct wt_client d;
    assert_int_equal(wt_open(&d, "dave", s->port), 0);
    wt_send(&d, "{s:s, s:s}", "type", "setup", "game", t.game);
    expect_error(&d, "not_joined");
    wt_send(&d, "{s:s, s:s}", "type", "setup", "game", "g-nosuchgame");
    expect_error(&d, "no_such_game");
    wt_send(&d, "{s:s}", "type", "setup");
    expect_error(&d, "bad_message");

    /* A Waterloo game: the whole scenario, as the file has it, and the
     * options as created. */
    wt_send(&d, "{s:s, s:s, s:s, s:{s:b}}", "type", "create", "ruleset", "waterloo", "scenario",
            "waterloo-1815", "options", "spectators", 1);
    json_t *created = wt_expect(&d, "created", T);
    assert_non_null(created);
    char game[32];
    snprintf(game, sizeof game, "%s", str(created, "game"));
    json_decref(created);
    json_decref(wt_expect(&d, "state", T));
    wt_send(&d, "{s:s, s:s}", "type", "setup", "game", game);
    json_t *su = wt_expect(&d, "setup", T);
    assert_non_null(su);
    assert_string_equal(str(su, "ruleset"), "waterloo");
    json_t *file = json_load_file(WARROOM_SCENARIO_DIR "/waterloo-1815/scenario.json", 0, NULL);
    assert_non_null(file);
    assert_true(json_equal(file, json_object_get(su, "scenario")));
    assert_true(json_is_true(json_object_get(json_object_get(su, "options"), "spectators")));
    json_decref(file);
    json_decref(su);
    wt_close(&d);
    wt_close(&t.a);
    wt_close(&t.b);
    wt_close(&t.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tictactoe_with_spectator),
        cmocka_unit_test(test_one_write_per_commit),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_setup),
        cmocka_unit_test(test_long_messages),
        cmocka_unit_test(test_resent_command_applied_once),
        cmocka_unit_test(test_drop_and_resume),
        cmocka_unit_test(test_webhook_when_turn_passes),
        cmocka_unit_test(test_forfeit_reason),
        cmocka_unit_test(test_waterloo_first_turn),
        cmocka_unit_test(test_sigkill_and_restart),
    };
    return cmocka_run_group_tests(tests, setup, wt_group_stop);
}
