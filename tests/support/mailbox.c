/*
 * mailbox.c - see mailbox.h.
 */
#define _GNU_SOURCE
#include "mailbox.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "proc.h"

#ifndef WT_SMTP_SINK
#error "WT_SMTP_SINK (the path of tests/support/smtp_sink.py) must be defined by the build"
#endif

/* Debian's interpreter, where python3-aiosmtpd installs the module. */
#define SINK_PYTHON "/usr/bin/python3"

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* --- the sink ------------------------------------------------------------------- */

/* A sink: stopped with SIGTERM when a failed test leaves it (proc.h). */
static void track_live(pid_t pid, int alive)
{
    wt_track_child(pid, alive, SIGTERM);
}

/* Read one line from fd before the deadline. */
static int read_line(int fd, char *buf, size_t cap, long deadline)
{
    size_t n = 0;
    while (n + 1 < cap) {
        long left = deadline - now_ms();
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return -1;
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

static int spawn_sink(struct wt_mailbox *mb, const char *const *extra)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    const char *argv[24];
    int argc = 0;
    argv[argc++] = SINK_PYTHON;
    argv[argc++] = WT_SMTP_SINK;
    argv[argc++] = mb->dir;
    for (int i = 0; extra && extra[i] && argc < 23; i++)
        argv[argc++] = extra[i];
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        /* A test that dies leaves no sink behind: the kernel stops it. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int logfd = open(mb->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (logfd >= 0)
            dup2(logfd, 2);
        dup2(pipefd[1], 1);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    mb->pid = pid;
    mb->out_fd = pipefd[0];
    track_live(pid, 1);
    char line[64];
    if (read_line(mb->out_fd, line, sizeof line, now_ms() + 20000) < 0 ||
        sscanf(line, "%d", &mb->port) != 1 || mb->port <= 0) {
        fprintf(stderr, "mailbox: %s did not print its port (its stderr: %s)\n", WT_SMTP_SINK,
                mb->log);
        wt_mailbox_stop(mb);
        return -1;
    }
    snprintf(mb->url, sizeof mb->url, "smtp://127.0.0.1:%d", mb->port);
    return 0;
}

int wt_mailbox_start(struct wt_mailbox *mb, const char *const *extra)
{
    const char *tmp = getenv("TMPDIR");
    memset(mb, 0, sizeof *mb);
    mb->out_fd = mb->watch_fd = -1;
    snprintf(mb->root, sizeof mb->root, "%s/warroom-mail-XXXXXX", tmp ? tmp : "/tmp");
    if (mkdtemp(mb->root) == NULL)
        return -1;
    snprintf(mb->dir, sizeof mb->dir, "%s/maildir", mb->root);
    snprintf(mb->log, sizeof mb->log, "%s/sink.log", mb->root);
    char sub[400];
    snprintf(sub, sizeof sub, "%s/new", mb->dir);
    if (mkdir(mb->dir, 0700) < 0 || mkdir(sub, 0700) < 0)
        return -1;
    /* Watch before the sink starts: no message can come unseen. */
    mb->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (mb->watch_fd < 0 || inotify_add_watch(mb->watch_fd, sub, IN_MOVED_TO | IN_CREATE) < 0)
        return -1;
    return spawn_sink(mb, extra);
}

int wt_mailbox_restart(struct wt_mailbox *mb, const char *const *extra)
{
    if (mb->pid > 0)
        return -1;
    return spawn_sink(mb, extra);
}

int wt_mailbox_stop(struct wt_mailbox *mb)
{
    if (mb->pid <= 0)
        return -1;
    int status = -1;
    kill(mb->pid, SIGTERM);
    long deadline = now_ms() + 10000;
    for (;;) {
        pid_t r = waitpid(mb->pid, &status, WNOHANG);
        if (r == mb->pid)
            break;
        long left = deadline - now_ms();
        if (r < 0 || left <= 0) {
            kill(mb->pid, SIGKILL);
            waitpid(mb->pid, NULL, 0);
            status = -1;
            break;
        }
        /* The sink's stdout ends when it exits: wait for that, bounded. */
        struct pollfd p = { .fd = mb->out_fd, .events = POLLIN };
        if (mb->out_fd >= 0 && poll(&p, 1, (int)(left < 100 ? left : 100)) > 0) {
            char buf[64];
            if (read(mb->out_fd, buf, sizeof buf) <= 0) {
                close(mb->out_fd);
                mb->out_fd = -1;
            }
        } else if (mb->out_fd < 0) {
            poll(NULL, 0, 10);  /* stdout closed, the exit not reaped yet: look again */
        }
    }
    if (mb->out_fd >= 0)
        close(mb->out_fd);
    track_live(mb->pid, 0);
    mb->out_fd = -1;
    mb->pid = 0;
    return status;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void wt_mailbox_cleanup(struct wt_mailbox *mb)
{
    if (mb->pid > 0)
        wt_mailbox_stop(mb);
    if (mb->watch_fd >= 0)
        close(mb->watch_fd);
    mb->watch_fd = -1;
    if (getenv("WT_SHOW_LOG")) {
        char *log = wt_read_file(mb->log, NULL);
        if (log && *log)
            fprintf(stderr, "--- smtp_sink stderr ---\n%s--- end ---\n", log);
        free(log);
    }
    if (mb->root[0] && !getenv("WT_KEEP_MAIL"))
        nftw(mb->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    else if (mb->root[0])
        fprintf(stderr, "mailbox: the messages are kept in %s/new\n", mb->dir);
}

static void file_of(const struct wt_mailbox *mb, int n, char *path, size_t cap)
{
    snprintf(path, cap, "%s/new/%06d.eml", mb->dir, n);
}

int wt_mailbox_count(const struct wt_mailbox *mb)
{
    char path[400];
    int n = 0;
    for (;;) {
        file_of(mb, n + 1, path, sizeof path);
        if (access(path, F_OK) != 0)
            return n;
        n++;
    }
}

/* Whether the message's X-Sink-Rcpt-To lists rcpt. */
static int sent_to(const char *raw, const char *rcpt)
{
    const char *h = strcasestr(raw, "X-Sink-Rcpt-To:");
    if (h == NULL)
        return 0;
    h += strlen("X-Sink-Rcpt-To:");
    size_t end = strcspn(h, "\r\n");
    size_t rl = strlen(rcpt);
    for (size_t i = 0; i < end;) {
        while (i < end && (h[i] == ' ' || h[i] == ','))
            i++;
        size_t j = i;
        while (j < end && h[j] != ',' && h[j] != ' ')
            j++;
        if (j - i == rl && strncasecmp(h + i, rcpt, rl) == 0)
            return 1;
        i = j;
    }
    return 0;
}

int wt_mailbox_count_to(const struct wt_mailbox *mb, const char *rcpt, int after)
{
    int count = 0, last = wt_mailbox_count(mb);
    char path[400];
    for (int n = after + 1; n <= last; n++) {
        file_of(mb, n, path, sizeof path);
        char *raw = wt_read_file(path, NULL);
        count += raw && sent_to(raw, rcpt);
        free(raw);
    }
    return count;
}

struct wt_mail *wt_mailbox_read(const struct wt_mailbox *mb, int n)
{
    char path[400];
    file_of(mb, n, path, sizeof path);
    size_t len = 0;
    char *raw = wt_read_file(path, &len);
    if (raw == NULL)
        return NULL;
    struct wt_mail *m = wt_mail_parse(raw, len);
    free(raw);
    if (m)
        m->n = n;
    return m;
}

struct wt_mail *wt_mailbox_next(struct wt_mailbox *mb, const char *rcpt, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    for (;;) {
        /* Drain the watch first: a message renamed after this look wakes
         * the poll below. */
        char ev[4096];
        while (mb->watch_fd >= 0 && read(mb->watch_fd, ev, sizeof ev) > 0)
            ;
        int last = wt_mailbox_count(mb);
        for (int n = 1; n <= last && n < (int)sizeof mb->taken; n++) {
            if (mb->taken[n])
                continue;
            char path[400];
            file_of(mb, n, path, sizeof path);
            char *raw = wt_read_file(path, NULL);
            int mine = raw && sent_to(raw, rcpt);
            free(raw);
            if (mine) {
                mb->taken[n] = 1;
                return wt_mailbox_read(mb, n);
            }
        }
        long left = deadline - now_ms();
        if (left <= 0)
            return NULL;
        struct pollfd p = { .fd = mb->watch_fd, .events = POLLIN };
        poll(&p, 1, (int)left);
    }
}

/* --- reading a message ------------------------------------------------------------ */

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* s with every CR before a LF removed (a new string). */
static char *lf_only(const char *s, size_t n, size_t *out_len)
{
    char *d = malloc(n + 1);
    size_t k = 0;
    if (d == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
            d[k++] = s[i];
    d[k] = '\0';
    *out_len = k;
    return d;
}

/* Parse the header block at s (LF line ends) into *hs and *nh; returns the
 * body's start, or NULL when there is no header block. */
static const char *parse_headers(const char *s, struct wt_mail_header **hs, int *nh)
{
    *hs = NULL;
    *nh = 0;
    const char *p = s;
    int cap = 0;
    while (*p && *p != '\n') {
        const char *colon = p;
        while (*colon && *colon != ':' && *colon != '\n')
            colon++;
        if (*colon != ':')
            return NULL;
        /* the value, with its continuation lines (unfolded: the line
         * breaks go, the blanks after them stay) */
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vcap = 64, vn = 0;
        char *val = malloc(vcap);
        const char *q = v;
        for (;;) {
            if (*q == '\0')
                break;
            if (*q == '\n') {
                if (q[1] == ' ' || q[1] == '\t') {
                    q++;
                    continue;
                }
                q++;
                break;
            }
            if (vn + 2 > vcap) {
                vcap *= 2;
                val = realloc(val, vcap);
            }
            val[vn++] = *q++;
        }
        while (vn > 0 && (val[vn - 1] == ' ' || val[vn - 1] == '\t'))
            vn--;
        val[vn] = '\0';
        if (*nh == cap) {
            cap = cap ? cap * 2 : 16;
            *hs = realloc(*hs, (size_t)cap * sizeof **hs);
        }
        (*hs)[*nh].name = dup_n(p, (size_t)(colon - p));
        (*hs)[*nh].value = val;
        (*nh)++;
        p = q;
    }
    return *p == '\n' ? p + 1 : p;
}

static const char *header_in(const struct wt_mail_header *hs, int nh, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (strcasecmp(hs[i].name, name) == 0)
            return hs[i].value;
    return NULL;
}

static void free_headers(struct wt_mail_header *hs, int nh)
{
    for (int i = 0; i < nh; i++) {
        free(hs[i].name);
        free(hs[i].value);
    }
    free(hs);
}

/* The value of parameter name in a Content-Type or Content-Disposition
 * value (quoted or not), into out; 0 or -1. */
static int param_of(const char *value, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *p = value ? strchr(value, ';') : NULL; p; p = strchr(p + 1, ';')) {
        const char *q = p + 1;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncasecmp(q, name, nl) != 0 || q[nl] != '=')
            continue;
        q += nl + 1;
        size_t n = 0;
        if (*q == '"') {
            q++;
            while (q[n] && q[n] != '"')
                n++;
        } else {
            while (q[n] && q[n] != ';' && q[n] != ' ')
                n++;
        }
        if (n >= cap)
            return -1;
        memcpy(out, q, n);
        out[n] = '\0';
        return 0;
    }
    return -1;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decode quoted-printable (LF line ends): "=XX" and the soft break "=\n". */
static char *qp_decode(const char *s, size_t n, size_t *out_len)
{
    char *d = malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=' && i + 1 < n && s[i + 1] == '\n') {
            i++;
        } else if (s[i] == '=' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
                   hexval(s[i + 2]) >= 0) {
            d[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else {
            d[k++] = s[i];
        }
    }
    d[k] = '\0';
    *out_len = k;
    return d;
}

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static char *b64_decode(const char *s, size_t n, size_t *out_len)
{
    char *d = malloc(n + 1);
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64val((unsigned char)s[i]);
        if (v < 0)
            continue;           /* line breaks, padding */
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[k++] = (char)((acc >> bits) & 0xff);
        }
    }
    d[k] = '\0';
    *out_len = k;
    return d;
}

static char *decode(const char *cte, const char *s, size_t n, size_t *out_len)
{
    if (cte && strncasecmp(cte, "quoted-printable", 16) == 0)
        return qp_decode(s, n, out_len);
    if (cte && strncasecmp(cte, "base64", 6) == 0)
        return b64_decode(s, n, out_len);
    *out_len = n;
    return dup_n(s, n);
}

/* One MIME entity (headers hs, body[0..n)) into m: the first text/plain
 * becomes m->text, multiparts are walked, anything else is a part. */
static int add_entity(struct wt_mail *m, const struct wt_mail_header *hs, int nh,
                      const char *body, size_t n, int depth)
{
    const char *ct = header_in(hs, nh, "Content-Type");
    const char *cte = header_in(hs, nh, "Content-Transfer-Encoding");
    const char *cd = header_in(hs, nh, "Content-Disposition");
    char type[128] = "text/plain";
    if (ct) {
        size_t tl = strcspn(ct, "; \t");
        snprintf(type, sizeof type, "%.*s", (int)tl, ct);
        for (char *c = type; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    }
    if (strncmp(type, "multipart/", 10) == 0) {
        char boundary[256], delim[270];
        if (depth > 4 || param_of(ct, "boundary", boundary, sizeof boundary) < 0)
            return -1;
        snprintf(delim, sizeof delim, "--%s", boundary);
        size_t dl = strlen(delim);
        /* parts: from after a delimiter line to the next delimiter line */
        const char *p = body, *end = body + n;
        const char *start = NULL;
        while (p < end) {
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            const char *next = eol ? eol + 1 : end;
            if ((size_t)(end - p) >= dl && memcmp(p, delim, dl) == 0) {
                if (start != NULL) {
                    /* the part ends before this line's preceding "\n" */
                    size_t pn = (size_t)(p - start);
                    if (pn > 0 && start[pn - 1] == '\n')
                        pn--;
                    char *copy = dup_n(start, pn);
                    struct wt_mail_header *ph;
                    int pnh;
                    const char *pb = parse_headers(copy, &ph, &pnh);
                    int rc = pb ? add_entity(m, ph, pnh, pb, strlen(pb), depth + 1) : -1;
                    free_headers(ph, pnh);
                    free(copy);
                    if (rc < 0)
                        return -1;
                }
                if (p + dl + 1 < end && p[dl] == '-' && p[dl + 1] == '-')
                    return 0;   /* the closing delimiter */
                start = next;
            }
            p = next;
        }
        return start ? 0 : -1;
    }
    size_t dn = 0;
    char *data = decode(cte, body, n, &dn);
    int attachment = cd && strncasecmp(cd, "attachment", 10) == 0;
    if (strcmp(type, "text/plain") == 0 && !attachment && m->text == NULL) {
        m->text = data;
        return 0;
    }
    char name[256] = "";
    if (param_of(cd, "filename", name, sizeof name) < 0)
        param_of(ct, "name", name, sizeof name);
    m->parts = realloc(m->parts, (size_t)(m->nparts + 1) * sizeof *m->parts);
    struct wt_mail_part *pt = &m->parts[m->nparts++];
    pt->type = strdup(type);
    pt->name = strdup(name);
    pt->data = data;
    pt->len = dn;
    return 0;
}

struct wt_mail *wt_mail_parse(const char *raw, size_t len)
{
    struct wt_mail *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->raw = dup_n(raw, len);
    m->len = len;
    size_t n = 0;
    char *s = lf_only(raw, len, &n);
    const char *body = s ? parse_headers(s, &m->headers, &m->nheaders) : NULL;
    if (body == NULL || m->nheaders == 0 ||
        add_entity(m, m->headers, m->nheaders, body, n - (size_t)(body - s), 0) < 0) {
        free(s);
        wt_mail_free(m);
        return NULL;
    }
    free(s);
    if (m->text == NULL)
        m->text = strdup("");
    return m;
}

void wt_mail_free(struct wt_mail *m)
{
    if (m == NULL)
        return;
    free(m->raw);
    free_headers(m->headers, m->nheaders);
    free(m->text);
    for (int i = 0; i < m->nparts; i++) {
        free(m->parts[i].type);
        free(m->parts[i].name);
        free(m->parts[i].data);
    }
    free(m->parts);
    free(m);
}

const char *wt_mail_header(const struct wt_mail *m, const char *name)
{
    return header_in(m->headers, m->nheaders, name);
}

const struct wt_mail_part *wt_mail_attachment(const struct wt_mail *m, const char *name)
{
    for (int i = 0; i < m->nparts; i++)
        if (strcmp(m->parts[i].name, name) == 0)
            return &m->parts[i];
    return NULL;
}

int wt_mail_address(const char *value, char *out, size_t cap)
{
    if (value == NULL)
        return -1;
    const char *lt = strchr(value, '<');
    const char *gt = lt ? strchr(lt, '>') : NULL;
    const char *a = value, *e = value + strlen(value);
    if (lt && gt) {
        a = lt + 1;
        e = gt;
    }
    while (a < e && isspace((unsigned char)*a))
        a++;
    while (e > a && isspace((unsigned char)e[-1]))
        e--;
    if ((size_t)(e - a) >= cap)
        return -1;
    memcpy(out, a, (size_t)(e - a));
    out[e - a] = '\0';
    return 0;
}

/* --- writing a reply ------------------------------------------------------------------ */

struct buf {
    char *s;
    size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        while (b->n + n + 1 > b->cap)
            b->cap = b->cap ? b->cap * 2 : 4096;
        b->s = realloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* One line of text (no line end) in quoted-printable, soft breaks before
 * 76 columns, then CRLF. */
static void qp_line(struct buf *b, const char *line, size_t n)
{
    size_t col = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)line[i];
        char enc[4];
        int last = i + 1 == n;
        if ((c >= 33 && c <= 126 && c != '=') || (c == ' ' && !last) ||
            (c == '\t' && !last))
            snprintf(enc, sizeof enc, "%c", c);
        else
            snprintf(enc, sizeof enc, "=%02X", c);
        size_t el = strlen(enc);
        if (col + el > 75) {
            puts_(b, "=\r\n");
            col = 0;
        }
        puts_(b, enc);
        col += el;
    }
    puts_(b, "\r\n");
}

char *wt_mail_reply_to(struct wt_mailbox *mb, const struct wt_mail *orig, const char *from,
                       const char *to, const char *const *lines, size_t *len, char *msgid,
                       size_t cap)
{
    const char *subject = wt_mail_header(orig, "Subject");
    const char *oid = wt_mail_header(orig, "Message-ID");
    const char *ofrom = wt_mail_header(orig, "From");
    char id[128];
    snprintf(id, sizeof id, "<reply-%d.%ld.%ld@players.test>", ++mb->replies, (long)getpid(),
             (long)time(NULL));
    if (msgid)
        snprintf(msgid, cap, "%s", id);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    char date[64], attrib[64];
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    /* Gmail's attribution: "On Tue, 1 Dec 2026 at 10:00, NAME <ADDR> wrote:" */
    strftime(attrib, sizeof attrib, "%a, %e %b %Y at %H:%M", &tm);
    char *a = attrib;
    for (char *c = a; *c; c++)         /* "%e" pads the day with a blank */
        if (c[0] == ' ' && c[1] == ' ')
            memmove(c, c + 1, strlen(c));

    struct buf b = { 0 };
    puts_(&b, "From: ");
    puts_(&b, from);
    puts_(&b, "\r\nTo: ");
    puts_(&b, to);
    puts_(&b, "\r\nSubject: Re: ");
    puts_(&b, subject ? subject : "");
    puts_(&b, "\r\nDate: ");
    puts_(&b, date);
    puts_(&b, "\r\nMessage-ID: ");
    puts_(&b, id);
    if (oid) {
        puts_(&b, "\r\nIn-Reply-To: ");
        puts_(&b, oid);
        puts_(&b, "\r\nReferences: ");
        puts_(&b, oid);
    }
    puts_(&b, "\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n"
              "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
    for (int i = 0; lines && lines[i]; i++)
        qp_line(&b, lines[i], strlen(lines[i]));
    puts_(&b, "\r\n");
    char line[1200];
    snprintf(line, sizeof line, "On %s, %s wrote:", a, ofrom ? ofrom : "Warroom");
    qp_line(&b, line, strlen(line));
    const char *t0 = orig->text;
    while (*t0) {
        size_t ln = strcspn(t0, "\n");
        struct buf q = { 0 };
        put(&q, ln > 0 ? "> " : ">", ln > 0 ? 2 : 1);
        put(&q, t0, ln);
        qp_line(&b, q.s, q.n);
        free(q.s);
        t0 += ln;
        if (*t0 == '\n')
            t0++;
    }
    if (len)
        *len = b.n;
    return b.s;
}

char *wt_mail_reply(struct wt_mailbox *mb, const struct wt_mail *orig, const char *from,
                    const char *const *lines, size_t *len, char *msgid, size_t cap)
{
    char to[320];
    const char *rt = wt_mail_header(orig, "Reply-To");
    if (rt == NULL)
        rt = wt_mail_header(orig, "From");
    if (rt == NULL || wt_mail_address(rt, to, sizeof to) < 0)
        return NULL;
    return wt_mail_reply_to(mb, orig, from, to, lines, len, msgid, cap);
}

/* --- warroom mail-in ----------------------------------------------------------------- */

int wt_mail_in(const char *client, const char *const *env, const char *url, int json,
               const char *msg, size_t len, int timeout_ms, char **out, char **err)
{
    /* The message is the child's standard input: a file (unlinked once
     * open), so neither side waits on a pipe's room. wt_proc_start's
     * child inherits this process's fd 0: it is swapped for the file
     * around the start and put back. */
    const char *tmp = getenv("TMPDIR");
    char path[300];
    snprintf(path, sizeof path, "%s/warroom-mail-in-XXXXXX", tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, msg + off, len - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    const char *argv[8];
    int n = 0;
    argv[n++] = client;
    argv[n++] = "--server";
    argv[n++] = url;
    if (json)
        argv[n++] = "--json";
    argv[n++] = "mail-in";
    argv[n] = NULL;
    int saved = dup(0);
    if (saved < 0 || dup2(fd, 0) < 0) {
        close(fd);
        if (saved >= 0)
            close(saved);
        return -1;
    }
    struct wt_proc p;
    int started = wt_proc_start(&p, argv, env);
    dup2(saved, 0);
    close(saved);
    close(fd);
    int rc = -1;
    if (started == 0)
        rc = wt_proc_finish(&p, timeout_ms);
    if (out) {
        *out = p.out;
        p.out = NULL;
    }
    if (err) {
        *err = p.err;
        p.err = NULL;
    }
    wt_proc_release(&p);
    return rc;
}
