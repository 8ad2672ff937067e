/*
 * store_open.h - which store a location names, and the backends' tables.
 *
 * One place chooses the backend (store.c): a location starting with
 * "postgres://" or "postgresql://" is a PostgreSQL store (store_pg.c, a
 * libpq URI); anything else is the path of an SQLite file
 * (store_sqlite.c), the embedded default.
 */
#ifndef WRD_STORE_OPEN_H
#define WRD_STORE_OPEN_H

#include "store.h"

extern const struct wrd_store_ops wrd_store_pg_ops;

/* PostgreSQL, several servers: the first key of the shared advisory lock
 * (this, WRD_NOTE_FORM) each process of a cluster holds, by which a
 * process of another form is refused (store_pg.c, "Ownership"). */
#define WRD_PG_FORM_CLASS 0x77726d66

/* The backend that location names (never NULL: SQLite by default). */
const struct wrd_store_ops *wrd_store_backend(const char *location);

/* open() of that backend: the same arguments, return codes and lifetimes
 * as struct wrd_store_ops's open (store.h). */
int wrd_store_open(struct wrd_store **out, const char *location, int flags, char *err,
                   size_t errlen);

/* A location as logs and messages may show it: the password of a URI
 * ("postgres://user:secret@host" gives "postgres://user:***@host", and a
 * password=... parameter the same) replaced; out gets at most len bytes. */
void wrd_store_redact(const char *location, char *out, size_t len);

#endif
