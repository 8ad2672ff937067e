/*
 * pgdb.h - fresh PostgreSQL databases for tests, on the throw-away cluster
 * of tests/support/pg_cluster.sh (ctest's pg_cluster_start fixture).
 *
 * The cluster's base URI (postgres://USER@127.0.0.1:PORT) comes from the
 * environment: WT_STORE_URL itself, or WT_STORE_URL_FILE naming the file
 * the fixture wrote it to. A test given either must find the cluster: a
 * missing file or a cluster that does not answer fails the test, it never
 * skips it.
 */
#ifndef WT_PGDB_H
#define WT_PGDB_H

#include <stddef.h>

/* The base URI (static storage), NULL when neither variable is set, ""
 * when one is set but names nothing readable (say so on stderr). */
const char *wt_pg_base(void);

/* CREATE DATABASE wt_<pid>_<n> (n counts this process's databases) through
 * a maintenance connection to base's "postgres" database; its URI (base
 * "/" name) into uri. 0, or -1 with the reason on stderr. */
int wt_pg_create(const char *base, char *uri, size_t len);

/* DROP DATABASE of a URI wt_pg_create gave (WITH (FORCE): a killed
 * server's session may linger). 0, or -1 with the reason on stderr. */
int wt_pg_drop(const char *uri);

#endif
