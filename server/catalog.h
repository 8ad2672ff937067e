/*
 * catalog.h - what a client may create on this server: the answer to
 * `rulesets` (docs/protocol.md, "rulesets"). Every ruleset of the registry
 * the server links, with its summary, seats, options (each with its help
 * text), default scenario and the scenarios of the server's --scenarios
 * folder made for it; and the server's own create options.
 *
 * The scenarios folder is read ONCE, at start-up, as web.c reads web/:
 * NAME.json and NAME/scenario.json at its top and one folder down
 * ("waterloo-1815", "campaign/ancient-world"), the names `create` takes.
 * A scenario is listed under the ruleset its file names ("ruleset") when
 * that ruleset's create() accepts it; one built on a "base" is not (the
 * server's create refuses a base). A scenario added later can still be
 * created by name; it is listed after a restart. Nothing here names a
 * ruleset: the registry is walked (wr_ruleset_at).
 *
 * Lifetime: wrd_catalog_load() returns a catalog owned by the caller
 * until wrd_catalog_free().
 */
#ifndef WRD_CATALOG_H
#define WRD_CATALOG_H

struct json_t;
struct wrd_server;
struct wrd_conn;
struct wrd_catalog;

/* At most this many scenario files are read. */
#define WRD_CATALOG_MAX_SCENARIOS 256

/* Build the answer from the linked registry and the scenarios under dir
 * (borrowed; a missing folder lists none). NULL when memory runs out. */
struct wrd_catalog *wrd_catalog_load(const char *dir);
void wrd_catalog_free(struct wrd_catalog *cat);

/* The handler of the client message `rulesets` (protocol.c's table): the
 * answer, echoing id, charged to the address by its size. */
void wrd_catalog_rulesets(struct wrd_server *srv, struct wrd_conn *c, const struct json_t *msg);

#endif
