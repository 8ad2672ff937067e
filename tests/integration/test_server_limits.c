/*
 * test_server_limits.c - warroomd's limits and operations on loopback:
 * commands per second, connections per address, idle connections, the
 * /metrics text, and decision deadlines (reminder, then forfeit).
 */
#define _GNU_SOURCE
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "wsclient.h"

#define T 5000

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int stop(struct wt_server *s)
{
    int status = wt_server_stop(s, SIGTERM, 10000);
    wt_server_cleanup(s);
    return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Create a tictactoe game as x with a, claim o with b (webhook optional). */
static void ttt(struct wt_client *a, struct wt_client *b, int port, json_t *options,
                const char *webhook, char *game)
{
    assert_int_equal(wt_open(a, "alice", port), 0);
    assert_int_equal(wt_open(b, "bob", port), 0);
    if (options)
        wt_send(a, "{s:s, s:s, s:s, s:o}", "type", "create", "ruleset", "tictactoe", "seat", "x",
                "options", options);
    else
        wt_send(a, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    json_t *c = wt_expect(a, "created", T);
    assert_non_null(c);
    strcpy(game, str(c, "game"));
    const char *inv = json_string_value(json_object_get(json_object_get(c, "invites"), "o"));
    if (webhook)
        wt_send(b, "{s:s, s:s, s:s}", "type", "claim", "invite", inv, "webhook", webhook);
    else
        wt_send(b, "{s:s, s:s}", "type", "claim", "invite", inv);
    json_t *cl = wt_expect(b, "claimed", T);
    assert_non_null(cl);
    json_decref(c);
    json_decref(cl);
}

static void test_rate_limit(void **state)
{
    (void)state;
    static const char *const args[] = { "--rate", "2", NULL };     /* bursts of 4 */
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client a, b;
    char game[32];
    ttt(&a, &b, s.port, NULL, NULL, game);
    /* Ten commands at once (o's turn never comes: x repeats an occupied
     * cell after the first): the budget runs out. */
    for (int i = 1; i <= 10; i++)
        wt_send(&a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", i,
                "cmd", "type", "mark", "cell", 4);
    int limited = 0, answered = 0;
    for (int i = 0; i < 10; i++) {
        json_t *e = wt_expect(&a, "error", T);
        if (e == NULL)
            break;
        answered++;
        limited += strcmp(str(e, "code"), "rate_limited") == 0;
        json_decref(e);
    }
    /* One ack (the first mark), nine errors, most of them rate_limited. */
    json_t *ack = wt_expect(&a, "ack", T);
    assert_non_null(ack);
    json_decref(ack);
    assert_int_equal(answered, 9);
    assert_true(limited >= 5);
    /* An ask counts as a command (protocol.md, ask): o's ten at once run
     * out of its budget too, the first answered. */
    for (int i = 1; i <= 10; i++)
        wt_send(&b, "{s:s, s:s, s:s, s:i}", "type", "ask", "game", game, "what", "describe",
                "id", i);
    int asked = 0, ask_limited = 0, ask_answered = 0;
    for (int i = 0; i < 10; i++) {
        json_t *m = wt_next(&b, T);
        while (m && json_integer_value(json_object_get(m, "id")) == 0) {
            json_decref(m);     /* o's patch of x's mark */
            m = wt_next(&b, T);
        }
        if (m == NULL)
            break;
        asked++;
        if (strcmp(str(m, "type"), "answer") == 0)
            ask_answered++;
        else
            ask_limited += strcmp(str(m, "code"), "rate_limited") == 0;
        json_decref(m);
    }
    assert_int_equal(asked, 10);
    assert_true(ask_answered >= 1);
    assert_true(ask_limited >= 5);
    assert_int_equal(ask_answered + ask_limited, 10);
    /* (Creating games draws on the budget of the client's address, not of
     * the connection: test_bad_input's rows 306-309.) */
    wt_close(&a);
    wt_close(&b);
    assert_true(stop(&s));
}

/* Messages past the address's budget wait in order and are each answered
 * as if they had not waited: a list of rulesets, a message that is not
 * JSON (its error the same as when it did not wait) and another list,
 * sixty times over, from one connection. The budget (200 units a second,
 * 100 at once) holds about 40 of the 180 at first; the rest wait for it. */
static void test_address_budget_waits(void **state)
{
    (void)state;
    static const char *const args[] = { "--address-rate", "200", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client a;
    assert_int_equal(wt_open(&a, "a", s.port), 0);
    static const char broken[] = "{\"type\": \"list\", \"id\": ";
    wt_send_text(&a, broken);
    json_t *first = wt_expect(&a, "error", T);
    assert_non_null(first);
    char parser_said[256];
    snprintf(parser_said, sizeof parser_said, "%s", str(first, "message"));
    json_decref(first);
    long began = now_ms();
    for (int i = 0; i < 60; i++) {
        wt_send(&a, "{s:s, s:i}", "type", "rulesets", "id", 3 * i);
        wt_send_text(&a, broken);
        wt_send(&a, "{s:s, s:i}", "type", "rulesets", "id", 3 * i + 2);
    }
    for (int i = 0; i < 180; i++) {
        json_t *m = wt_next(&a, T);
        if (m == NULL)
            fail_msg("answer %d of 180 did not come", i + 1);
        const char *type = str(m, "type");
        json_t *id = json_object_get(m, "id");
        if (i % 3 == 1) {
            if (strcmp(type, "error") != 0 || strcmp(str(m, "code"), "bad_json") != 0 ||
                id != NULL || strcmp(str(m, "message"), parser_said) != 0)
                fail_msg("answer %d: not bad_json '%s' without an id: %s '%s'", i + 1,
                         parser_said, type, str(m, "message"));
        } else if (strcmp(type, "rulesets") != 0 ||
                   json_integer_value(id) != i) {
            fail_msg("answer %d: %s (%s) with id %lld, not %s with id %d", i + 1, type,
                     json_is_string(json_object_get(m, "message")) ? str(m, "message") : "",
                     (long long)json_integer_value(id), "rulesets", i);
        }
        json_decref(m);
    }
    /* 480 units, 100 at once and 200 a second: they did wait */
    long took = now_ms() - began;
    if (took < 1500)
        fail_msg("180 answers in %ld ms: the budget did not hold them (1.9 s at least)", took);
    wt_close(&a);
    assert_true(stop(&s));
}

/* A costly request waits its turn, and is not passed over by cheaper
 * ones from the same address that the budget could hold sooner (addr.h,
 * the turns). Two connections ask for the rulesets (3 units: 2, and 1 for
 * its bytes) over and over, each the next as soon as the last is
 * answered, until the budget (40 units a second, 100 at once) is spent
 * and they wait for it; then a third asks for a list of games (6 units).
 * Its answer must come while the two go on asking: the three of them take
 * turns, about 0.3 s a round, and 10 s is allowed for a loaded machine (a
 * list is read from the store). Served by whoever could take the budget
 * first, the list waited for 6 units that never gathered, since each 3
 * that did went to one of the two. */
static void test_address_turns(void **state)
{
    (void)state;
    static const char *const args[] = { "--address-rate", "40", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client spam[2], c;
    for (int i = 0; i < 2; i++)
        assert_int_equal(wt_open(&spam[i], i ? "spam-b" : "spam-a", s.port), 0);
    assert_int_equal(wt_open(&c, "lister", s.port), 0);
    int id[2] = { 0, 0 };
    long answered[2] = { 0, 0 };
    for (int i = 0; i < 2; i++)
        wt_send(&spam[i], "{s:s, s:i}", "type", "rulesets", "id", ++id[i]);
    /* until both have been held back once: an answer slower than 20 ms */
    long began = now_ms(), slow = 0;
    while (slow < 2) {
        if (now_ms() - began > 10000)
            fail_msg("the budget was not spent in 10 s: %ld and %ld answers", answered[0],
                     answered[1]);
        for (int i = 0; i < 2; i++) {
            long t0 = now_ms();
            json_t *m = wt_next(&spam[i], 2000);
            if (m == NULL || strcmp(str(m, "type"), "rulesets") != 0)
                fail_msg("connection %d: no rulesets answer", i);
            json_decref(m);
            answered[i]++;
            slow += now_ms() - t0 > 20;
            wt_send(&spam[i], "{s:s, s:i}", "type", "rulesets", "id", ++id[i]);
        }
    }
    wt_send(&c, "{s:s, s:i}", "type", "list", "id", 7);
    long asked = now_ms();
    json_t *list = NULL;
    long spam_after = 0;
    while (list == NULL && now_ms() - asked < 10000) {
        list = wt_next(&c, 5);
        for (int i = 0; i < 2; i++) {
            json_t *m = wt_next(&spam[i], 5);
            if (m != NULL) {
                json_decref(m);
                spam_after++;
                wt_send(&spam[i], "{s:s, s:i}", "type", "rulesets", "id", ++id[i]);
            }
        }
    }
    long waited = now_ms() - asked;
    if (list == NULL)
        fail_msg("the list was not answered in 10 s while the other two had %ld answers",
                 spam_after);
    assert_string_equal(str(list, "type"), "games");
    assert_int_equal(json_integer_value(json_object_get(list, "id")), 7);
    json_decref(list);
    print_message("the list was answered in %ld ms\n", waited);
    /* ...and the two were still served meanwhile, in their turns */
    assert_true(spam_after >= 1);
    for (int i = 0; i < 2; i++)
        wt_close(&spam[i]);
    wt_close(&c);
    assert_true(stop(&s));
}

/* Spend c's address's budget with rulesets (2 units each) until one is
 * held: the budget is then about empty. */
static void spend_budget(struct wt_client *c)
{
    int held = 0;
    for (int i = 0; i < 200 && !held; i++) {
        long t0 = now_ms();
        wt_send(c, "{s:s, s:i}", "type", "rulesets", "id", i);
        json_t *m = wt_expect(c, "rulesets", T);    /* a game's messages kept aside */
        if (m == NULL)
            fail_msg("request %d: no rulesets answer", i);
        json_decref(m);
        held = now_ms() - t0 > 100;
    }
    assert_true(held);
}

/* c's next `created` must answer the create id. */
static void expect_created(struct wt_client *c, int id)
{
    json_t *m = wt_expect(c, "created", T);
    if (m == NULL || json_integer_value(json_object_get(m, "id")) != id)
        fail_msg("create %d was not answered", id);
    json_decref(m);
}

/* The lobby page (HTTP GET /games) waits for its address's budget in its
 * turn, as a websocket message does (addr.h, the turns). At 10 units a
 * second: rulesets until one is held, so the budget is about empty; then
 * a create (21) waits about 2.1 s. A page asked 1 s into that wait, when
 * the budget holds about 10 units, more than the page's 5, is not let
 * through before the create: it is answered (200) about 0.5 s after it,
 * not at once. A page whose turn would come after its connection's
 * deadline (--handshake-timeout 3: two creates waiting, 4.2 s) is refused
 * 429 at once, and the creates still go through. */
static void test_address_turns_lobby(void **state)
{
    (void)state;
    static const char *const args[] = { "--address-rate", "10", "--handshake-timeout", "3",
                                         NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client c, d;
    assert_int_equal(wt_open(&c, "creator", s.port), 0);
    assert_int_equal(wt_open(&d, "second", s.port), 0);
    spend_budget(&c);
    wt_send(&c, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 1000);
    long asked = now_ms();
    json_t *early = wt_next(&c, 1000);
    if (early != NULL)
        fail_msg("the create was answered (%s) in %ld ms, before 21 units gathered at 10 a second",
                 str(early, "type"), now_ms() - asked);
    int status = 0;
    static char body[65536];
    assert_int_equal(wt_http_get(s.port, "/games", &status, body, sizeof body), 0);
    long page_at = now_ms() - asked;
    print_message("the lobby page asked 1 s into the create's wait: %d at %ld ms\n", status,
                  page_at);
    assert_int_equal(status, 200);
    /* 21 units from an about empty budget take at least 1.9 s: a page let
     * through before the create would have come at about 1 s */
    assert_true(page_at >= 1900);
    expect_created(&c, 1000);

    spend_budget(&c);
    wt_send(&c, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 1001);
    wt_send(&d, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 2001);
    early = wt_next(&d, 200);   /* both are held: neither is answered */
    if (early != NULL)
        fail_msg("the second create was answered (%s) at once", str(early, "type"));
    long t0 = now_ms();
    assert_int_equal(wt_http_get(s.port, "/games", &status, body, sizeof body), 0);
    long refused_in = now_ms() - t0;
    print_message("the lobby page behind two creates: %d in %ld ms\n", status, refused_in);
    assert_int_equal(status, 429);
    assert_true(refused_in < 1000);
    expect_created(&c, 1001);
    expect_created(&d, 2001);
    wt_close(&c);
    wt_close(&d);
    assert_true(stop(&s));
}

/* Lobby pages whose connections close while they wait their turn leave
 * the queue with them (net.c, wait_hup; addr.h, wake): they neither hold
 * up the requests behind them nor are charged. At 10 units a second, with
 * the budget about empty: a create (21 units) waits at the head and three
 * pages are asked behind it. Once the create is answered, a second create
 * is sent, behind the pages; then their connections close, and the second
 * create, 2.1 s from an empty budget, is answered. Were the pages still in
 * the queue, it would wait behind turns nobody takes (for ever), or behind
 * their 15 units as well (3.6 s: closes not seen), or for as long as it
 * was told when it joined behind them (3.6 s: no wake). */
static void test_address_turns_lobby_gone(void **state)
{
    (void)state;
    static const char *const args[] = { "--address-rate", "10", "--handshake-timeout", "30",
                                         NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client c;
    assert_int_equal(wt_open(&c, "creator", s.port), 0);
    spend_budget(&c);
    wt_send(&c, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 1000);
    static const char req[] = "GET /games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    int page[3];
    for (int i = 0; i < 3; i++) {
        page[i] = wt_tcp_connect("127.0.0.1", s.port);
        assert_true(page[i] >= 0);
        assert_int_equal(write(page[i], req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    }
    /* The server reads the pages while the create waits (about 2 s): by its
     * answer they are queued, the first 0.5 s from its turn. */
    expect_created(&c, 1000);
    long t0 = now_ms();
    wt_send(&c, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 1001);
    for (int i = 0; i < 3; i++) {
        struct pollfd pf = { .fd = page[i], .events = POLLIN };
        if (poll(&pf, 1, 0) != 0) {
            char got[64] = "";
            ssize_t n = read(page[i], got, sizeof got - 1);
            fail_msg("page %d was answered before its turn: %.*s", i, (int)(n > 0 ? n : 0), got);
        }
        close(page[i]);
    }
    expect_created(&c, 1001);
    long took = now_ms() - t0;
    print_message("a create behind three closed pages' turns: answered in %ld ms\n", took);
    assert_true(took >= 1900);      /* it did wait for its 21 units */
    assert_true(took < 3000);       /* and for nothing of theirs */
    wt_close(&c);
    assert_true(stop(&s));
}

static void test_connections_per_address(void **state)
{
    (void)state;
    static const char *const args[] = { "--max-per-address", "2", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client a, b, c;
    assert_int_equal(wt_open(&a, "a", s.port), 0);
    assert_int_equal(wt_open(&b, "b", s.port), 0);
    memset(&c, 0, sizeof c);
    c.name = "c";
    c.fd = wt_ws_connect(s.port);
    assert_true(c.fd >= 0);
    assert_int_equal(wt_expect_close(&c, T), 1008);
    wt_close(&c);
    /* One leaves: a new one is welcome again. */
    wt_close(&b);
    int ok = 0;
    long deadline = now_ms() + T;
    while (!ok && now_ms() < deadline) {
        struct wt_client d;
        ok = wt_open(&d, "d", s.port) == 0;
        wt_close(&d);
    }
    assert_true(ok);
    wt_close(&a);
    assert_true(stop(&s));
}

/* c creates a tictactoe game: 1 created, 0 refused with code (asserted). */
static int create_or(struct wt_client *c, const char *code)
{
    wt_send(c, "{s:s, s:s, s:s}", "type", "create", "ruleset", "tictactoe", "seat", "x");
    for (;;) {
        json_t *m = wt_next(c, T);
        if (m == NULL)
            fail_msg("%s: no answer to create", c->name);
        const char *t = str(m, "type");
        int created = t && strcmp(t, "created") == 0;
        int refused = t && strcmp(t, "error") == 0;
        if (refused && strcmp(str(m, "code"), code) != 0)
            fail_msg("%s: create refused with %s, not %s", c->name, str(m, "code"), code);
        json_decref(m);
        if (created || refused)
            return created;
    }
}

/* Behind a reverse proxy (--trusted-proxy 127.0.0.1): each client is
 * counted at the address the proxy names last in X-Forwarded-For, for
 * connections and games, and keeps its count when it reconnects; what a
 * client wrote before the proxy's item is not believed; a peer that is
 * no trusted proxy is counted at its own address whatever header it sends;
 * the lobby over HTTP costs the named client's budget. */
static void test_trusted_proxy(void **state)
{
    (void)state;
    static const char *const args[] = { "--trusted-proxy", "127.0.0.1", "--max-per-address",
                                         "1", "--max-open-per-address", "1",
                                         "--address-rate", "10", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client a, b, c, d, e;
    assert_int_equal(wt_open_headers(&a, "a", s.port, NULL,
                                     "X-Forwarded-For: 203.0.113.7\r\n"), 0);
    assert_int_equal(create_or(&a, "too_many_open_games"), 1);
    /* another client (its own claim first, then the proxy's item) */
    assert_int_equal(wt_open_headers(&b, "b", s.port, NULL,
                                     "X-Forwarded-For: 203.0.113.7\r\n"
                                     "X-Forwarded-For: 198.51.100.20\r\n"), 0);
    assert_int_equal(create_or(&b, "too_many_open_games"), 1);
    /* a's second connection: over its one */
    memset(&c, 0, sizeof c);
    c.name = "c";
    c.fd = wt_ws_connect_headers(s.port, NULL, "X-Forwarded-For: 203.0.113.7\r\n");
    assert_true(c.fd >= 0);
    assert_int_equal(wt_expect_close(&c, T), 1008);
    wt_close(&c);
    /* a reconnects: its open game still counts */
    wt_close(&a);
    int ok = 0;
    long deadline = now_ms() + T;
    while (!ok && now_ms() < deadline)
        ok = wt_open_headers(&a, "a again", s.port, NULL,
                             "X-Forwarded-For: [203.0.113.7]\r\n") == 0 || (wt_close(&a), 0);
    assert_true(ok);
    assert_int_equal(create_or(&a, "too_many_open_games"), 0);
    /* a peer that is no trusted proxy: its header is ignored */
    assert_int_equal(wt_open_headers(&d, "d", s.port, "127.0.0.2",
                                     "X-Forwarded-For: 192.0.2.1\r\n"), 0);
    memset(&e, 0, sizeof e);
    e.name = "e";
    e.fd = wt_ws_connect_headers(s.port, "127.0.0.2", "X-Forwarded-For: 192.0.2.2\r\n");
    assert_true(e.fd >= 0);
    assert_int_equal(wt_expect_close(&e, T), 1008);
    wt_close(&e);
    /* the lobby: pages spend a client's budget of 100 units (5 each, and
     * the bytes of the answer), and not another client's: once it is
     * spent, the client's next page waits for 5 units (0.5 s), and another
     * client's is answered at once */
    char body[65536];
    int status = 0, spent = 0, held = 0;
    for (int i = 0; i < 40 && !held; i++) {
        long t0 = now_ms();
        assert_int_equal(wt_http_get_headers(s.port, "/games", "X-Forwarded-For: 192.0.2.50\r\n",
                                             &status, body, sizeof body), 0);
        assert_int_equal(status, 200);
        held = now_ms() - t0 > 300;
        spent += !held;
    }
    assert_true(held);
    if (spent < 1 || spent > 21)
        fail_msg("%d lobby pages before the budget ran out, not 1 to 21", spent);
    long t0 = now_ms();
    assert_int_equal(wt_http_get_headers(s.port, "/games", "X-Forwarded-For: 192.0.2.51\r\n",
                                         &status, body, sizeof body), 0);
    assert_int_equal(status, 200);
    assert_true(now_ms() - t0 < 300);
    wt_close(&a);
    wt_close(&b);
    wt_close(&d);
    assert_true(stop(&s));
}

/* A client that never answers the server's pings is hung up on. */
/* A connection whose message waits its turn longer than --idle-timeout is
 * not hung up for it: the server reads nothing from it meanwhile, pongs
 * included, so the proof that it is alive is the server's to give. At 10
 * units/s with the budget spent, two creates (21 units each) from two
 * connections wait about 2.1 s and 4.2 s, past an idle time-out of 2 s;
 * both are answered. (The test client answers no ping: an idle one is
 * hung up, as test_idle_timeout shows, so only the waiting counts.) */
static void test_address_turns_outlast_idle(void **state)
{
    (void)state;
    static const char *const args[] = { "--address-rate", "10", "--idle-timeout", "2", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    struct wt_client p, a, b;
    assert_int_equal(wt_open(&p, "spender", s.port), 0);
    assert_int_equal(wt_open(&a, "first", s.port), 0);
    assert_int_equal(wt_open(&b, "second", s.port), 0);
    spend_budget(&p);
    long t0 = now_ms();
    wt_send(&a, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 2000);
    wt_send(&b, "{s:s, s:s, s:s, s:i}", "type", "create", "ruleset", "tictactoe", "seat", "x",
            "id", 2001);
    /* in whichever order the server read them: the second within T of the
     * first's answer */
    expect_created(&a, 2000);
    expect_created(&b, 2001);
    long took = now_ms() - t0;
    print_message("two creates waiting their turns past an idle time-out of 2 s: the later "
                  "answered in %ld ms\n", took);
    assert_true(took >= 3500);      /* the later waited well past the time-out */
    wt_close(&p);
    wt_close(&a);
    wt_close(&b);
    assert_true(stop(&s));
}

static void test_idle_timeout(void **state)
{
    (void)state;
    static const char *const args[] = { "--idle-timeout", "2", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    int fd = wt_ws_connect(s.port);
    assert_true(fd >= 0);
    long t0 = now_ms();
    int closed = 0;
    while (!closed && now_ms() - t0 < 15000) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 15000) <= 0)
            break;
        char buf[512];
        closed = read(fd, buf, sizeof buf) <= 0;      /* pings are read and ignored */
    }
    long waited = now_ms() - t0;
    close(fd);
    assert_true(closed);
    assert_true(waited >= 1500);
    assert_true(stop(&s));
}

static void test_metrics(void **state)
{
    (void)state;
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, NULL), 0);
    struct wt_client a, b;
    char game[32];
    ttt(&a, &b, s.port, NULL, NULL, game);
    wt_send(&a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1, "cmd",
            "type", "mark", "cell", 0);
    json_decref(wt_expect(&a, "ack", T));
    wt_send(&b, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1, "cmd",
            "type", "mark", "cell", 0);
    json_decref(wt_expect(&b, "error", T));
    int status = 0;
    static char body[16384];
    assert_int_equal(wt_http_get(s.port, "/metrics", &status, body, sizeof body), 0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "warroom_connections 2\n"));
    assert_non_null(strstr(body, "warroom_games 1\n"));
    assert_non_null(strstr(body, "warroom_commands_total 1\n"));
    assert_non_null(strstr(body, "warroom_rejections_total 1\n"));
    assert_non_null(strstr(body, "warroom_store_commit_seconds_bucket{le=\"+Inf\"}"));
    assert_non_null(strstr(body, "warroom_bytes_out_total"));
    assert_int_equal(wt_http_get(s.port, "/games", &status, body, sizeof body), 0);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, game));
    wt_close(&a);
    wt_close(&b);
    assert_true(stop(&s));
}

/* A 2-second decision deadline: the late seat is reminded, then forfeits. */
static void test_deadline_forfeit(void **state)
{
    (void)state;
    /* The receiver is on loopback: allowed by the operator. */
    static const char *const args[] = { "--webhook-allow", "127.0.0.1", NULL };
    struct wt_server s;
    assert_int_equal(wt_server_start(&s, args), 0);
    int hport = 0, lfd = wt_http_listen(&hport);
    assert_true(lfd >= 0);
    char url[96], game[32];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/late", hport);
    struct wt_client a, b;
    ttt(&a, &b, s.port, json_pack("{s:i}", "deadline_seconds", 2), url, game);
    wt_send(&a, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1, "cmd",
            "type", "mark", "cell", 4);
    json_decref(wt_expect(&a, "ack", T));
    /* o says nothing: a reminder, then the forfeit. */
    const char *want[] = { "deadline_reminder", "deadline_expired" };
    for (int i = 0; i < 2; i++) {
        char *body = wt_http_receive_post(lfd, 10000, NULL, 0);
        if (body == NULL)
            fail_msg("no %s webhook", want[i]);
        json_t *j = json_loads(body, 0, NULL);
        assert_string_equal(str(j, "event"), want[i]);
        assert_string_equal(str(j, "seat"), "o");
        json_decref(j);
        free(body);
    }
    json_t *st = NULL;
    long deadline = now_ms() + T;
    while (now_ms() < deadline) {
        st = wt_expect(&a, "state", T);
        if (st == NULL || strcmp(str(st, "status"), "finished") == 0)
            break;
        json_decref(st);
        st = NULL;
    }
    assert_non_null(st);
    assert_string_equal(str(st, "forfeit"), "o");
    json_decref(st);
    /* Too late now. */
    wt_send(&b, "{s:s, s:s, s:i, s:{s:s, s:i}}", "type", "command", "game", game, "seq", 1, "cmd",
            "type", "mark", "cell", 0);
    json_t *e = wt_expect(&b, "error", T);
    assert_string_equal(str(e, "code"), "game_over");
    json_decref(e);
    close(lfd);
    wt_close(&a);
    wt_close(&b);
    assert_true(stop(&s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_limit),
        cmocka_unit_test(test_address_budget_waits),
        cmocka_unit_test(test_address_turns),
        cmocka_unit_test(test_address_turns_lobby),
        cmocka_unit_test(test_address_turns_lobby_gone),
        cmocka_unit_test(test_address_turns_outlast_idle),
        cmocka_unit_test(test_connections_per_address),
        cmocka_unit_test(test_trusted_proxy),
        cmocka_unit_test(test_idle_timeout),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_deadline_forfeit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
