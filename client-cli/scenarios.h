/*
 * scenarios.h - the files the client reads: scenarios found by name, and
 * whole files (records, states).
 *
 * A name like "waterloo-1815" or "test/small" is looked up, in order, in
 * $WARROOM_SCENARIOS, ./scenarios and then this build's scenario folders
 * (platform/datadir.h: the source tree's for a warroom run from the build
 * tree; for an installed one, <bindir>/../share/warroom/scenarios, then the
 * configured prefix's), as NAME.json or NAME/scenario.json. Names never
 * climb out of those directories (no "..", no leading "/").
 */
#ifndef WRC_SCENARIOS_H
#define WRC_SCENARIOS_H

#include <stddef.h>

struct json_t;

/* Write the path of scenario name into buf; 0 when found, -1 otherwise. */
int wrc_scenario_path(const char *name, char *buf, size_t len);

/* Every folder wrc_scenario_path() searches, in its order, as one line for
 * messages ("A, B or C"); truncated to len. */
void wrc_scenario_places(char *buf, size_t len);

/* The whole file at path ("-": standard input), NUL-terminated, at most
 * max bytes; *len is its length. NULL with errno set (EFBIG when larger).
 * Caller frees. */
char *wrc_slurp(const char *path, size_t max, size_t *len);

/* A wl_scenario_resolver: the scenario JSON (new reference) or NULL. */
struct json_t *wrc_scenario_resolve(const char *name, void *ctx);

#endif
