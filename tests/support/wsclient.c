/*
 * wsclient.c - see wsclient.h.
 */
#include "wsclient.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonpatch.h"
#include "proc.h"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int wt_send_text(struct wt_client *c, const char *text)
{
    return wt_ws_send_text(c->fd, text, strlen(text));
}

int wt_send(struct wt_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    json_t *j = json_vpack_ex(NULL, 0, fmt, ap);
    va_end(ap);
    if (j == NULL)
        return -1;
    char *s = json_dumps(j, JSON_COMPACT);
    int rc = wt_send_text(c, s);
    free(s);
    json_decref(j);
    return rc;
}

/* Keep the tracked state current. */
static void track(struct wt_client *c, json_t *m)
{
    const char *type = json_string_value(json_object_get(m, "type"));
    const char *game = json_string_value(json_object_get(m, "game"));
    if (type == NULL || game == NULL)
        return;
    if (c->game[0] && strcmp(game, c->game) != 0)
        return;
    if (strcmp(type, "state") == 0) {
        snprintf(c->game, sizeof c->game, "%s", game);
        json_decref(c->state);
        c->state = json_deep_copy(json_object_get(m, "state"));
        c->version = json_integer_value(json_object_get(m, "version"));
    } else if (strcmp(type, "patch") == 0 && c->state) {
        long long from = json_integer_value(json_object_get(m, "from"));
        if (from != c->version) {
            c->bad_patches++;
            return;
        }
        json_t *out = NULL;
        char err[256];
        if (wr_jsonpatch_apply(c->state, json_object_get(m, "ops"), &out, err, sizeof err) != 0) {
            fprintf(stderr, "%s: patch %lld failed: %s\n", c->name, from, err);
            c->bad_patches++;
            return;
        }
        json_decref(c->state);
        c->state = out;
        c->version = json_integer_value(json_object_get(m, "to"));
        c->patches++;
    }
}

/* One message from the socket, or NULL on time-out/close. */
static json_t *read_one(struct wt_client *c, int timeout_ms)
{
    int op;
    char *data;
    size_t len;
    if (timeout_ms < 0 || wt_ws_recv(c->fd, &op, &data, &len, timeout_ms) < 0)
        return NULL;
    if (op != 1) {
        free(data);
        return NULL;
    }
    if (c->on_text)
        c->on_text(c, data, len);
    json_t *m = json_loads(data, JSON_REJECT_DUPLICATES, NULL);
    free(data);
    if (m)
        track(c, m);
    return m;
}

json_t *wt_expect(struct wt_client *c, const char *type, int timeout_ms)
{
    for (int i = 0; i < c->nbacklog; i++) {
        const char *t = json_string_value(json_object_get(c->backlog[i], "type"));
        if (t && strcmp(t, type) == 0) {
            json_t *m = c->backlog[i];
            memmove(&c->backlog[i], &c->backlog[i + 1],
                    sizeof(json_t *) * (size_t)(c->nbacklog - i - 1));
            c->nbacklog--;
            return m;
        }
    }
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        json_t *m = read_one(c, (int)(deadline - now_ms()));
        if (m == NULL)
            return NULL;
        const char *t = json_string_value(json_object_get(m, "type"));
        if (t && strcmp(t, type) == 0)
            return m;
        if (c->nbacklog == WT_BACKLOG) {
            json_decref(c->backlog[0]);
            memmove(&c->backlog[0], &c->backlog[1], sizeof(json_t *) * (WT_BACKLOG - 1));
            c->nbacklog--;
        }
        c->backlog[c->nbacklog++] = m;
    }
}

json_t *wt_next(struct wt_client *c, int timeout_ms)
{
    if (c->nbacklog > 0) {
        json_t *m = c->backlog[0];
        memmove(&c->backlog[0], &c->backlog[1], sizeof(json_t *) * (size_t)(c->nbacklog - 1));
        c->nbacklog--;
        return m;
    }
    return read_one(c, timeout_ms);
}

void wt_drain(struct wt_client *c, int timeout_ms)
{
    json_t *m;
    while ((m = read_one(c, timeout_ms)) != NULL) {
        if (c->nbacklog < WT_BACKLOG)
            c->backlog[c->nbacklog++] = m;
        else
            json_decref(m);
    }
}

int wt_wait_version(struct wt_client *c, long long v, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    while (c->version < v) {
        json_t *m = read_one(c, (int)(deadline - now_ms()));
        if (m == NULL)
            return -1;
        if (c->nbacklog < WT_BACKLOG)
            c->backlog[c->nbacklog++] = m;
        else
            json_decref(m);
    }
    return 0;
}

int wt_expect_close(struct wt_client *c, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        int op;
        char *data;
        size_t len;
        if (wt_ws_recv(c->fd, &op, &data, &len, (int)(deadline - now_ms())) < 0)
            return -1;
        if (op == 8) {
            int code = len >= 2 ? (((unsigned char)data[0] << 8) | (unsigned char)data[1]) : 1005;
            free(data);
            return code;
        }
        free(data);
    }
}

int wt_open(struct wt_client *c, const char *name, int port)
{
    return wt_open_from(c, name, port, NULL);
}

int wt_open_from(struct wt_client *c, const char *name, int port, const char *src)
{
    return wt_open_headers(c, name, port, src, NULL);
}

int wt_open_headers(struct wt_client *c, const char *name, int port, const char *src,
                    const char *headers)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->version = -1;
    c->fd = wt_ws_connect_headers(port, src, headers);
    if (c->fd < 0)
        return -1;
    if (wt_send(c, "{s:s, s:i}", "type", "hello", "protocol", 1) < 0)
        return -1;
    json_t *w = wt_expect(c, "welcome", 5000);
    if (w == NULL)
        return -1;
    json_decref(w);
    return 0;
}

void wt_close(struct wt_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    for (int i = 0; i < c->nbacklog; i++)
        json_decref(c->backlog[i]);
    c->nbacklog = 0;
    json_decref(c->state);
    c->state = NULL;
}
