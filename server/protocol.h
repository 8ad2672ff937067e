/*
 * protocol.h - protocol v1 (docs/protocol.md) defined once, as data: one
 * table of client message types with their fields; one dispatcher checks
 * type and shape before any handler runs.
 */
#ifndef WRD_PROTOCOL_H
#define WRD_PROTOCOL_H

#include <stddef.h>

struct wrd_server;
struct wrd_conn;

/* Register the dispatcher with the connections (conn.h's hooks). */
void wrd_protocol_init(struct wrd_server *srv);

/* The base cost, in budget units (addr.h), of a message of that type: its
 * row's in the table, 1 for a type that is not a known message. The HTTP
 * lobby page costs what a "list" costs. */
double wrd_protocol_cost(const char *type);

/* Handle one complete inbound text message: 0 when it was handled
 * (answered, refused or acted on), or the milliseconds to wait before
 * offering it again when its client address's budget is spent (addr.h):
 * nothing was done with it, and the connection should read nothing more
 * until then. */
int wrd_protocol_dispatch(struct wrd_server *srv, struct wrd_conn *c, const char *text,
                          size_t len);

#endif
