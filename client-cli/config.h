/*
 * config.h - what warroom remembers between runs, so a player types neither
 * a token nor the server address twice: $XDG_CONFIG_HOME/warroom/config.json
 * (or ~/.config/warroom/config.json):
 *
 *   {"server": "ws://host:8080/",                  default server (optional)
 *    "games": {"g-3f9a1c0b7e21": {"server": URL, "seat": "french",
 *                                 "token": "<64 hex>", "ruleset": "waterloo",
 *                                 "seq": 12, "invites": {...}}}}
 *
 * It holds seat tokens, so it is private: created with mode 0600 (its
 * directory 0700), and a file that group or others may read is refused
 * with a sentence saying how to fix it. Every change is made under an
 * exclusive lock (flock on config.json.lock) on the file as it is on disk
 * then, and written to a temporary file renamed over the old one, so two
 * warroom processes never lose each other's changes or reuse a command seq.
 *
 * Scenarios of games are cached in $XDG_CACHE_HOME/warroom/scenarios/ (or
 * ~/.cache/warroom/scenarios/); they hold nothing secret.
 */
#ifndef WRC_CONFIG_H
#define WRC_CONFIG_H

#include <stddef.h>
#include <stdint.h>

struct json_t;

struct wrc_config {
    char dir[1024];
    char path[1100];
    struct json_t *root;        /* owned; an object */
};

/* Find the config file and read it (a missing file is an empty config).
 * Returns 0, or -1 with a sentence in err: no HOME, unreadable, not JSON,
 * or readable by group or others. */
int wrc_config_open(struct wrc_config *c, char *err, size_t errlen);

void wrc_config_release(struct wrc_config *c);

/* The default server, or NULL. Borrowed from c. */
const char *wrc_config_server(const struct wrc_config *c);

/* The entry of game (borrowed from c), or NULL. */
struct json_t *wrc_config_game(const struct wrc_config *c, const char *game);

/* Set the fields of game's entry to those of fields (an object, borrowed;
 * a null value removes the field), creating the entry; "server": NULL
 * leaves the default. Locked read-modify-write; c is reloaded. 0 or -1
 * with err. */
int wrc_config_set_game(struct wrc_config *c, const char *game, const struct json_t *fields,
                        char *err, size_t errlen);

/* Set the default server. 0 or -1 with err. */
int wrc_config_set_server(struct wrc_config *c, const char *url, char *err, size_t errlen);

/* Take the next command seq of game (its "seq" plus one), written back
 * before it is returned. 0 or -1 with err. */
int wrc_config_next_seq(struct wrc_config *c, const char *game, int64_t *seq, char *err,
                        size_t errlen);

/* The path of the cached scenario of game into buf (its directory is
 * created). 0, or -1 when there is no HOME or the directory cannot be made. */
int wrc_cache_scenario_path(const char *game, char *buf, size_t len);

#endif
