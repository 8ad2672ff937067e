/*
 * config.c - the private config file and the scenario cache (config.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX (4u << 20)

/* base/sub, base being $VAR when it is absolute, else $HOME/fallback. */
static int xdg_dir(const char *var, const char *fallback, const char *sub, char *buf, size_t n)
{
    const char *x = getenv(var);
    const char *home = getenv("HOME");
    int w;
    if (x && x[0] == '/')
        w = snprintf(buf, n, "%s/%s", x, sub);
    else if (home && home[0])
        w = snprintf(buf, n, "%s/%s/%s", home, fallback, sub);
    else
        return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* mkdir -p with mode for the directories it makes. */
static int make_dirs(const char *path, mode_t mode)
{
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, mode) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Read the file into c->root; a missing file gives an empty object. */
static int load(struct wrc_config *c, char *err, size_t errlen)
{
    json_decref(c->root);
    c->root = NULL;
    int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) {
            c->root = json_object();
            return 0;
        }
        snprintf(err, errlen, "cannot read the config file %s: %s", c->path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "the config file %s is not a regular file", c->path);
        close(fd);
        return -1;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(err, errlen, "the config file %s holds seat tokens but group or others may "
                 "read or write it (mode %03o); make it private with: chmod 600 %s",
                 c->path, (unsigned)(st.st_mode & 0777), c->path);
        close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "the config file %s belongs to another user", c->path);
        close(fd);
        return -1;
    }
    if ((size_t)st.st_size > CONFIG_MAX) {
        snprintf(err, errlen, "the config file %s is larger than %u bytes", c->path,
                 CONFIG_MAX);
        close(fd);
        return -1;
    }
    json_error_t je;
    c->root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
    close(fd);
    if (c->root == NULL || !json_is_object(c->root)) {
        snprintf(err, errlen, "the config file %s is not a JSON object (%d:%d: %s)", c->path,
                 je.line, je.column, c->root ? "not an object" : je.text);
        json_decref(c->root);
        c->root = NULL;
        return -1;
    }
    return 0;
}

int wrc_config_open(struct wrc_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (xdg_dir("XDG_CONFIG_HOME", ".config", "warroom", c->dir, sizeof c->dir) != 0) {
        snprintf(err, errlen, "neither XDG_CONFIG_HOME nor HOME is set: nowhere to keep the "
                 "config file");
        return -1;
    }
    snprintf(c->path, sizeof c->path, "%s/config.json", c->dir);
    return load(c, err, errlen);
}

void wrc_config_release(struct wrc_config *c)
{
    json_decref(c->root);
    c->root = NULL;
}

const char *wrc_config_server(const struct wrc_config *c)
{
    return json_string_value(json_object_get(c->root, "server"));
}

json_t *wrc_config_game(const struct wrc_config *c, const char *game)
{
    return json_object_get(json_object_get(c->root, "games"), game);
}

/* Write c->root: a private temporary file, then rename. */
static int save(struct wrc_config *c, char *err, size_t errlen)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", c->path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    char *text = json_dumps(c->root, JSON_INDENT(2) | JSON_SORT_KEYS);
    size_t len = text ? strlen(text) : 0;
    int ok = text != NULL && fchmod(fd, 0600) == 0 && write(fd, text, len) == (ssize_t)len &&
             write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    free(text);
    ok = (close(fd) == 0) && ok;
    if (!ok || rename(tmp, c->path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", c->path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Lock, reload, let change() edit the root, save, unlock. */
static int update(struct wrc_config *c, int (*change)(json_t *root, void *ctx), void *ctx,
                  char *err, size_t errlen)
{
    if (make_dirs(c->dir, 0700) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", c->dir, strerror(errno));
        return -1;
    }
    char lockpath[1200];
    snprintf(lockpath, sizeof lockpath, "%s.lock", c->path);
    int lfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", lockpath, strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    int rc = load(c, err, errlen);
    if (rc == 0 && change(c->root, ctx) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = save(c, err, errlen);
    close(lfd);         /* releases the lock */
    return rc;
}

static json_t *games_of(json_t *root)
{
    json_t *games = json_object_get(root, "games");
    if (!json_is_object(games)) {
        games = json_object();
        json_object_set_new(root, "games", games);
    }
    return games;
}

struct set_game {
    const char *game;
    const json_t *fields;
};

static int do_set_game(json_t *root, void *ctx)
{
    struct set_game *s = ctx;
    json_t *games = games_of(root);
    json_t *g = json_object_get(games, s->game);
    if (!json_is_object(g)) {
        g = json_object();
        if (json_object_set_new(games, s->game, g) != 0)
            return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)s->fields, key, v) {
        if (json_is_null(v))
            json_object_del(g, key);
        else
            json_object_set(g, key, v);
    }
    return 0;
}

int wrc_config_set_game(struct wrc_config *c, const char *game, const json_t *fields,
                        char *err, size_t errlen)
{
    struct set_game s = { game, fields };
    return update(c, do_set_game, &s, err, errlen);
}

static int do_set_server(json_t *root, void *ctx)
{
    return json_object_set_new(root, "server", json_string(ctx));
}

int wrc_config_set_server(struct wrc_config *c, const char *url, char *err, size_t errlen)
{
    return update(c, do_set_server, (void *)url, err, errlen);
}

struct next_seq {
    const char *game;
    int64_t seq;
};

static int do_next_seq(json_t *root, void *ctx)
{
    struct next_seq *s = ctx;
    json_t *games = games_of(root);
    json_t *g = json_object_get(games, s->game);
    if (!json_is_object(g)) {
        g = json_object();
        json_object_set_new(games, s->game, g);
    }
    s->seq = json_integer_value(json_object_get(g, "seq")) + 1;
    return json_object_set_new(g, "seq", json_integer(s->seq));
}

int wrc_config_next_seq(struct wrc_config *c, const char *game, int64_t *seq, char *err,
                        size_t errlen)
{
    struct next_seq s = { game, 0 };
    int rc = update(c, do_next_seq, &s, err, errlen);
    *seq = s.seq;
    return rc;
}

int wrc_cache_scenario_path(const char *game, char *buf, size_t len)
{
    char dir[1024];
    if (xdg_dir("XDG_CACHE_HOME", ".cache", "warroom/scenarios", dir, sizeof dir) != 0 ||
        make_dirs(dir, 0755) != 0 || strchr(game, '/') || game[0] == '.')
        return -1;
    int n = snprintf(buf, len, "%s/%s.json", dir, game);
    return n > 0 && (size_t)n < len ? 0 : -1;
}
