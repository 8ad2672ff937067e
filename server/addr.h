/*
 * addr.h - what one client address may cost the server, whatever its
 * connections: a budget of request cost (a token bucket), the games it
 * created that are not finished, and the bytes queued to its connections.
 *
 * A client is known by its address: an IPv4 address, or the /64 prefix of
 * an IPv6 address (one host is usually given a whole /64). Records outlive
 * the connections: one is freed only when nothing holds it and its budget
 * has refilled, so reconnecting never restores a spent budget.
 *
 * Costs are counted in units (docs/protocol.md, "Limits"): every message
 * type has a base cost, charged before it is handled; work whose size is
 * only known after it is done (an export, a list, a joiner's state) is
 * charged after, and may drive the budget below zero, so that the address
 * waits longer before its next request.
 *
 * Requests that wait for an address's budget take turns: they are let
 * through in the order they first waited, whatever their costs, so a
 * costly request (a list, a create) is never passed over by cheaper ones
 * from the same address that came after it.
 */
#ifndef WRD_ADDR_H
#define WRD_ADDR_H

#include <stddef.h>
#include <stdint.h>

struct wrd_server;

/* A request waiting for its address's budget: its place in the address's
 * queue. It lives in what waits (a connection's held message, conn.h; an
 * HTTP lobby page, net.c), which tries again when wrd_addr_turn_wait_ms
 * says, and leaves the queue when let through (wrd_addr_take_turn) or when
 * it goes away (wrd_addr_leave). Zeroed: not queued.
 *
 * wake, set by the owner (NULL: nobody to tell), is called while the turn
 * waits when a turn ahead of it left the queue without being let through:
 * its wait is shorter than its owner was told, and the owner sets its
 * timer again from wrd_addr_turn_wait_ms. It is called from within
 * wrd_addr_leave and must not change the queue (no take_turn, no leave). */
struct wrd_addr_turn {
    struct wrd_addr_turn *next, *prev;
    double cost;                /* units it waits for; 0 while not queued */
    void (*wake)(struct wrd_addr_turn *t);
};

struct wrd_addr {
    struct wrd_addr *next;      /* hash chain */
    char key[48];               /* "192.0.2.7" or "2001:db8:1:2::/64" */
    int refs;                   /* connections and games holding it */
    double tokens;              /* request budget left, in cost units */
    uint64_t refill_ms;         /* loop time of the last refill */
    int websockets;             /* its websocket connections (--max-per-address) */
    int handshakes;             /* its connections not yet websockets (net.c) */
    int open_games;             /* games created from here with a seat unclaimed */
    int games;                  /* games created from here, open or running */
    int views;                  /* ask's views its connections hold (ask.h) */
    size_t queued;              /* bytes queued to its connections, not yet written */
    int mails;                  /* confirmation mails asked for from here since mails_ms */
    uint64_t mails_ms;          /* loop time that hour began (the record is kept through it) */
    struct wrd_addr_turn *turns, *turns_last; /* requests waiting for the budget, oldest first */
};

/* The record of a peer address as lws gives it (an IPv4 or IPv6 literal),
 * with one more reference; created when absent. NULL when memory runs out. */
struct wrd_addr *wrd_addr_get(struct wrd_server *srv, const char *peer);

/* The record of a peer address if there is one (no reference taken):
 * for a look before deciding to hold it. */
struct wrd_addr *wrd_addr_find(struct wrd_server *srv, const char *peer);

/* One more reference to a (NULL stays NULL); returns a. */
struct wrd_addr *wrd_addr_hold(struct wrd_addr *a);

/* Drop a reference (NULL is ignored). The record stays until its budget
 * has refilled (see wrd_addr_sweep). */
void wrd_addr_put(struct wrd_server *srv, struct wrd_addr *a);

/* Take cost units from a's budget for the request t, which may wait: 1
 * when t is first in a's queue, or nothing waits, and the budget holds
 * `cost` (t leaves the queue); 0 when not, and t joins the end of the
 * queue if it was not in it (nothing taken: try again after
 * wrd_addr_turn_wait_ms). A NULL a lets everything through. */
int wrd_addr_take_turn(struct wrd_server *srv, struct wrd_addr *a, struct wrd_addr_turn *t,
                       double cost);

/* How long the queued request t should wait before it tries again: until
 * the budget holds its cost and the costs of those before it;
 * milliseconds, at least 1. */
int wrd_addr_turn_wait_ms(struct wrd_server *srv, struct wrd_addr *a,
                          const struct wrd_addr_turn *t);

/* Take t out of a's queue (a request whose connection went away, or that
 * was given up); nothing when it is not queued. The turns that were behind
 * it are woken (their wake), their waits now shorter by its cost. */
void wrd_addr_leave(struct wrd_addr *a, struct wrd_addr_turn *t);

/* Charge cost units for work already done, even past zero. */
void wrd_addr_charge(struct wrd_server *srv, struct wrd_addr *a, double cost);

/* One more confirmation mail asked for from a (play by email): 1 when a
 * has asked for fewer than max in the last hour (counted from its first
 * one), 0 when not (refuse; nothing counted). The record is kept for that
 * hour even with nothing holding it, so reconnecting does not reset it. */
int wrd_addr_take_mail(struct wrd_server *srv, struct wrd_addr *a, int max);

/* The units of work that produced `bytes` of answer (1 per 8 KiB, rounded up). */
double wrd_addr_bytes_cost(size_t bytes);

/* The table, in srv->addrs, with a timer that frees, every few seconds,
 * the records nothing holds whose budget is full again. 0, or -1 when
 * memory runs out. */
int wrd_addrs_new(struct wrd_server *srv);
/* Shutdown, from inside the loop: close the timer. */
void wrd_addrs_close(struct wrd_server *srv);
/* After the loop has ended: free every record and the table. */
void wrd_addrs_free(struct wrd_server *srv);

/* Records held (for /metrics). */
int wrd_addr_count(const struct wrd_server *srv);

#endif
