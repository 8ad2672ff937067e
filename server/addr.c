/*
 * addr.c - per-address budgets, games and queued bytes (see addr.h).
 */
#include "addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "dlist.h"
#include "server.h"

#define BUCKETS 4096
#define SWEEP_MS 5000

struct wrd_addrs {
    struct wrd_addr *bucket[BUCKETS];
    int count;
    uv_timer_t sweep;
};

/* The key of a peer: the IPv4 address, or the /64 prefix of an IPv6 one
 * (an IPv4-mapped IPv6 address is its IPv4 address). Anything else (a
 * Unix socket, say) is its own key, cut to fit. */
static void addr_key(const char *peer, char *key, size_t len)
{
    struct in6_addr a6;
    if (strchr(peer, ':') && inet_pton(AF_INET6, peer, &a6) == 1) {
        static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        if (memcmp(a6.s6_addr, mapped, 12) == 0) {
            inet_ntop(AF_INET, a6.s6_addr + 12, key, (socklen_t)len);
            return;
        }
        memset(a6.s6_addr + 8, 0, 8);
        char text[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &a6, text, sizeof text);
        size_t n = strlen(text);
        if (n + 4 <= len) {
            memcpy(key, text, n);
            memcpy(key + n, "/64", 4);
            return;
        }
    }
    snprintf(key, len, "%s", peer);
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % BUCKETS;
}

/* The budget's size: a quarter of a second's worth (at least 100 units,
 * five creates). Small on purpose: what an address spends at once, the
 * loop spends at once, in front of every other client's next message. */
static double burst(const struct wrd_server *srv)
{
    double b = srv->cfg.address_rate / 4.0;
    return b < 100 ? 100 : b;
}

static void refill(struct wrd_server *srv, struct wrd_addr *a)
{
    uint64_t now = uv_now(&srv->loop);
    a->tokens += (double)(now - a->refill_ms) * srv->cfg.address_rate / 1000.0;
    if (a->tokens > burst(srv))
        a->tokens = burst(srv);
    a->refill_ms = now;
}

struct wrd_addr *wrd_addr_find(struct wrd_server *srv, const char *peer)
{
    char key[48];
    addr_key(peer ? peer : "", key, sizeof key);
    for (struct wrd_addr *a = srv->addrs->bucket[hash(key)]; a; a = a->next)
        if (strcmp(a->key, key) == 0)
            return a;
    return NULL;
}

struct wrd_addr *wrd_addr_get(struct wrd_server *srv, const char *peer)
{
    struct wrd_addrs *t = srv->addrs;
    struct wrd_addr *a = wrd_addr_find(srv, peer);
    if (a != NULL) {
        a->refs++;
        return a;
    }
    char key[48];
    addr_key(peer ? peer : "", key, sizeof key);
    unsigned h = hash(key);
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    snprintf(a->key, sizeof a->key, "%s", key);
    a->refs = 1;
    a->tokens = burst(srv);
    a->refill_ms = uv_now(&srv->loop);
    a->next = t->bucket[h];
    t->bucket[h] = a;
    t->count++;
    return a;
}

struct wrd_addr *wrd_addr_hold(struct wrd_addr *a)
{
    if (a != NULL)
        a->refs++;
    return a;
}

void wrd_addr_put(struct wrd_server *srv, struct wrd_addr *a)
{
    (void)srv;
    if (a != NULL)
        a->refs--;
}

/* Whether a's budget holds cost units now; a cost larger than the whole
 * burst passes on a full budget. */
static int affords(struct wrd_server *srv, struct wrd_addr *a, double cost)
{
    refill(srv, a);
    return a->tokens >= cost || a->tokens >= burst(srv);
}

static void unqueue(struct wrd_addr *a, struct wrd_addr_turn *t)
{
    WRD_DLIST_REMOVE(a->turns, a->turns_last, t, prev, next);
    t->cost = 0;
}

void wrd_addr_leave(struct wrd_addr *a, struct wrd_addr_turn *t)
{
    if (a == NULL || t->cost == 0)
        return;
    struct wrd_addr_turn *behind = t->next;
    unqueue(a, t);
    for (struct wrd_addr_turn *u = behind; u != NULL; u = u->next)
        if (u->wake != NULL)
            u->wake(u);
}

int wrd_addr_take_turn(struct wrd_server *srv, struct wrd_addr *a, struct wrd_addr_turn *t,
                       double cost)
{
    if (a == NULL)
        return 1;
    if ((a->turns == NULL || a->turns == t) && affords(srv, a, cost)) {
        if (t->cost != 0)
            unqueue(a, t);
        a->tokens -= cost;
        return 1;
    }
    if (t->cost == 0)
        WRD_DLIST_APPEND(a->turns, a->turns_last, t, prev, next);
    t->cost = cost;
    return 0;
}

int wrd_addr_turn_wait_ms(struct wrd_server *srv, struct wrd_addr *a,
                          const struct wrd_addr_turn *t)
{
    refill(srv, a);
    /* What the budget must gather before t's turn: its own cost and those
     * of the requests before it, each above the whole burst counted as the
     * burst (it waits for a full budget and is then let through). */
    double b = burst(srv), need = -a->tokens;
    for (const struct wrd_addr_turn *u = a->turns; u != NULL; u = u->next) {
        need += u->cost > b ? b : u->cost;
        if (u == t)
            break;
    }
    double ms = need * 1000.0 / srv->cfg.address_rate;
    return ms < 1 ? 1 : ms > 60000 ? 60000 : (int)ms + 1;
}

void wrd_addr_charge(struct wrd_server *srv, struct wrd_addr *a, double cost)
{
    if (a == NULL)
        return;
    refill(srv, a);
    a->tokens -= cost;
}

#define MAIL_HOUR_MS 3600000

int wrd_addr_take_mail(struct wrd_server *srv, struct wrd_addr *a, int max)
{
    if (a == NULL)
        return 1;
    uint64_t now = uv_now(&srv->loop);
    if (a->mails == 0 || now - a->mails_ms >= MAIL_HOUR_MS) {
        a->mails = 0;
        a->mails_ms = now;
    }
    if (a->mails >= max)
        return 0;
    a->mails++;
    return 1;
}

double wrd_addr_bytes_cost(size_t bytes)
{
    return (double)((bytes + 8191) / 8192);
}

static void sweep(uv_timer_t *timer)
{
    struct wrd_server *srv = timer->data;
    struct wrd_addrs *t = srv->addrs;
    for (int i = 0; i < BUCKETS; i++)
        for (struct wrd_addr **p = &t->bucket[i]; *p;) {
            struct wrd_addr *a = *p;
            if (a->refs == 0)
                refill(srv, a);
            int mail_hour = a->mails > 0 &&
                            uv_now(&srv->loop) - a->mails_ms < MAIL_HOUR_MS;
            if (a->refs == 0 && a->tokens >= burst(srv) && !mail_hour) {
                *p = a->next;
                free(a);
                t->count--;
            } else {
                p = &a->next;
            }
        }
}

int wrd_addrs_new(struct wrd_server *srv)
{
    srv->addrs = calloc(1, sizeof *srv->addrs);
    if (srv->addrs == NULL)
        return -1;
    uv_timer_init(&srv->loop, &srv->addrs->sweep);
    srv->addrs->sweep.data = srv;
    uv_timer_start(&srv->addrs->sweep, sweep, SWEEP_MS, SWEEP_MS);
    uv_unref((uv_handle_t *)&srv->addrs->sweep);
    return 0;
}

void wrd_addrs_close(struct wrd_server *srv)
{
    if (srv->addrs && !uv_is_closing((uv_handle_t *)&srv->addrs->sweep))
        uv_close((uv_handle_t *)&srv->addrs->sweep, NULL);
}

void wrd_addrs_free(struct wrd_server *srv)
{
    struct wrd_addrs *t = srv->addrs;
    if (t == NULL)
        return;
    for (int i = 0; i < BUCKETS; i++)
        while (t->bucket[i]) {
            struct wrd_addr *a = t->bucket[i];
            t->bucket[i] = a->next;
            free(a);
        }
    free(t);
    srv->addrs = NULL;
}

int wrd_addr_count(const struct wrd_server *srv)
{
    return srv->addrs ? srv->addrs->count : 0;
}
