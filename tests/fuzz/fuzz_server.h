/*
 * fuzz_server.h - the in-process server the server's fuzz targets drive:
 * one per process (like one warroomd, games accumulate), its store an
 * in-memory SQLite database, one client address with its budgets lifted
 * (every message is handled, none held back), the log at warnings.
 */
#ifndef FUZZ_SERVER_H
#define FUZZ_SERVER_H

struct wrd_server;

/* The server (made on the first call; aborts when it cannot be). */
struct wrd_server *fuzz_server(void);

#endif
