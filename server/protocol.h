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

/* Handle one complete inbound text message. */
void wrd_protocol_dispatch(struct wrd_server *srv, struct wrd_conn *c, const char *text,
                           size_t len);

#endif
