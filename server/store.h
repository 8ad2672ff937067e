/*
 * store.h - where games are kept: the store interface.
 *
 * The server talks to its store only through this table of functions, so a
 * second backend can be added without touching game or network code. The
 * default backend is SQLite (store_sqlite.c): WAL, synchronous=FULL.
 */
#ifndef WRD_STORE_H
#define WRD_STORE_H

#include <stddef.h>

struct wrd_store;

struct wrd_store_ops {
    const char *name;
    /* Open or create the store at location; on error fill err and return -1. */
    int (*open)(struct wrd_store **out, const char *location, char *err, size_t errlen);
    /* Flush and close; the store pointer is freed. */
    void (*close)(struct wrd_store *st);
    /* Schema version of the open store. */
    int (*schema_version)(struct wrd_store *st);
};

struct wrd_store {
    const struct wrd_store_ops *ops;
};

extern const struct wrd_store_ops wrd_store_sqlite_ops;

#endif
