/*
 * pgdb.c - fresh PostgreSQL databases for tests (pgdb.h).
 */
#include "pgdb.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *wt_pg_base(void)
{
    static char base[256];
    const char *v = getenv("WT_STORE_URL");
    if (v && *v) {
        snprintf(base, sizeof base, "%s", v);
        return base;
    }
    const char *file = getenv("WT_STORE_URL_FILE");
    if (file == NULL || *file == '\0')
        return NULL;
    FILE *f = fopen(file, "r");
    base[0] = '\0';
    if (f == NULL || fgets(base, sizeof base, f) == NULL) {
        fprintf(stderr, "pgdb: no base URI in %s (did the pg_cluster_start fixture run?)\n",
                file);
        base[0] = '\0';
    }
    if (f)
        fclose(f);
    base[strcspn(base, "\r\n")] = '\0';
    return base;
}

/* Run one command on base's maintenance database. */
static int maintenance(const char *base, const char *sql)
{
    char uri[400];
    snprintf(uri, sizeof uri, "%s/postgres", base);
    PGconn *c = PQconnectdb(uri);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pgdb: cannot connect to %s: %s", uri, PQerrorMessage(c));
        PQfinish(c);
        return -1;
    }
    PGresult *r = PQexec(c, sql);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : -1;
    if (rc < 0)
        fprintf(stderr, "pgdb: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return rc;
}

int wt_pg_create(const char *base, char *uri, size_t len)
{
    static int n;
    if (base == NULL || *base == '\0') {
        fprintf(stderr, "pgdb: no PostgreSQL cluster to create a database in\n");
        return -1;
    }
    char name[64], sql[128];
    snprintf(name, sizeof name, "wt_%ld_%d", (long)getpid(), ++n);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    if (maintenance(base, sql) < 0)
        return -1;
    snprintf(uri, len, "%s/%s", base, name);
    return 0;
}

int wt_pg_drop(const char *uri)
{
    const char *slash = strrchr(uri, '/');
    if (slash == NULL || strncmp(slash + 1, "wt_", 3) != 0) {
        fprintf(stderr, "pgdb: %s is not a test database\n", uri);
        return -1;
    }
    char base[300], sql[128];
    snprintf(base, sizeof base, "%.*s", (int)(slash - uri), uri);
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", slash + 1);
    return maintenance(base, sql);
}
