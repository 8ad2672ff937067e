/*
 * mailbox.h - the test side of mail (issue 17, play by email): a real
 * SMTP server on loopback catching every message the server sends, a
 * reader of those messages, the reply a player's mail client would write,
 * and `warroom mail-in` fed that reply on its standard input.
 *
 * The SMTP server is tests/support/smtp_sink.py (Debian's aiosmtpd under
 * /usr/bin/python3), started as a child process and stopped by its pid
 * with SIGTERM. It keeps each message as MAILDIR/new/NNNNNN.eml, numbered
 * from 1 in the order accepted, with the envelope recipients in the header
 * X-Sink-Rcpt-To. Waiting for a message watches that folder (inotify) with
 * a deadline: nothing sleeps in place of waiting.
 *
 * The reader is a small MIME reader good enough for the server's own mails
 * (server/mail.h, wrd_mail_format): headers unfolded, the text/plain part
 * decoded from quoted-printable (or base64, 7bit, 8bit), and the
 * attachments of a multipart/mixed decoded from base64 with their names
 * and types.
 *
 * Nothing here calls cmocka: failures are return values (NULL, -1) and a
 * sentence on stderr, for the test to turn into its own failure message.
 */
#ifndef WT_MAILBOX_H
#define WT_MAILBOX_H

#include <stddef.h>
#include <sys/types.h>

/* The SMTP sink and its maildir. Lives from wt_mailbox_start() to
 * wt_mailbox_cleanup(). */
struct wt_mailbox {
    pid_t pid;                  /* the sink, 0 once stopped */
    int out_fd;                 /* its stdout (the port line), -1 once stopped */
    int port;                   /* its SMTP port on 127.0.0.1 */
    int watch_fd;               /* inotify on dir/new, -1: none */
    char root[256];             /* a private temporary directory */
    char dir[300];              /* the maildir: root/maildir */
    char log[300];              /* the sink's stderr */
    char url[64];               /* "smtp://127.0.0.1:PORT" for warroomd --smtp */
    unsigned char taken[4096];  /* taken[n]: message n was returned by wt_mailbox_next */
    int replies;                /* replies composed so far (their Message-IDs) */
};

/* Start the sink (extra: further arguments, NULL-terminated, or NULL; e.g.
 * "--fail-first", "2") in a fresh temporary directory and read its port.
 * 0, or -1 (nothing left running). */
int wt_mailbox_start(struct wt_mailbox *mb, const char *const *extra);

/* Start the sink again on the same maildir (after wt_mailbox_stop): new
 * messages are numbered after the ones kept. Its port may differ. 0 or -1. */
int wt_mailbox_restart(struct wt_mailbox *mb, const char *const *extra);

/* Stop the sink by its pid (SIGTERM, waiting up to 10 s, then SIGKILL).
 * Returns its wait status, or -1 when it had to be killed. The maildir
 * stays. */
int wt_mailbox_stop(struct wt_mailbox *mb);

/* Stop the sink if it runs and remove the directory. */
void wt_mailbox_cleanup(struct wt_mailbox *mb);

/* The number of the last message kept (0: none yet). */
int wt_mailbox_count(const struct wt_mailbox *mb);

/* How many messages numbered after `after` were sent to rcpt (taken or
 * not), now. */
int wt_mailbox_count_to(const struct wt_mailbox *mb, const char *rcpt, int after);

/* --- one message ------------------------------------------------------------- */

struct wt_mail_header {
    char *name;                 /* as written ("Reply-To") */
    char *value;                /* unfolded, leading blanks removed */
};

struct wt_mail_part {
    char *type;                 /* "image/svg+xml" (the type alone, no parameters) */
    char *name;                 /* its file name, or "" */
    char *data;                 /* decoded, NUL-terminated (binary allowed) */
    size_t len;
};

struct wt_mail {
    int n;                      /* its number in the maildir (0: not from it) */
    char *raw;                  /* the message as kept, NUL-terminated */
    size_t len;
    struct wt_mail_header *headers;
    int nheaders;
    char *text;                 /* the first text/plain part, decoded, "\n" line ends */
    struct wt_mail_part *parts; /* the other parts (attachments), decoded */
    int nparts;
};

/* Read raw[0..len) (CRLF or LF line ends). NULL when it is not a message
 * (no header block) or memory runs out. Free with wt_mail_free(). */
struct wt_mail *wt_mail_parse(const char *raw, size_t len);
void wt_mail_free(struct wt_mail *m);

/* The first header called name (any case), or NULL. Borrowed from m. */
const char *wt_mail_header(const struct wt_mail *m, const char *name);

/* The attachment called name, or NULL. Borrowed from m. */
const struct wt_mail_part *wt_mail_attachment(const struct wt_mail *m, const char *name);

/* The address inside a header value: what is between '<' and '>', or the
 * whole value trimmed, into out (cap bytes). 0, or -1 when it does not fit. */
int wt_mail_address(const char *value, char *out, size_t cap);

/* Message n of the maildir, or NULL when it is not there. */
struct wt_mail *wt_mailbox_read(const struct wt_mailbox *mb, int n);

/* The next message sent to rcpt (an envelope recipient, exactly) that no
 * earlier call returned, in the maildir's order, waiting for it up to
 * timeout_ms; NULL on time-out. It is marked taken. */
struct wt_mail *wt_mailbox_next(struct wt_mailbox *mb, const char *rcpt, int timeout_ms);

/* --- the player's side --------------------------------------------------------- */

/* The reply a mail client writes to orig, sent from `from` (the seat's
 * address): To = orig's Reply-To (its From without one), Subject "Re: "
 * and orig's subject, In-Reply-To and References = orig's Message-ID, a
 * new Message-ID (written into msgid, cap bytes, with its brackets), then
 * lines (NULL-terminated; may be NULL: none) above the attribution line
 * "On Tue, 1 Dec 2026 at 10:00, <orig's From> wrote:" and orig's whole
 * text quoted with "> ". text/plain UTF-8 in quoted-printable, CRLF line
 * ends. Returns the message (caller frees; *len its length) or NULL. */
char *wt_mail_reply(struct wt_mailbox *mb, const struct wt_mail *orig, const char *from,
                    const char *const *lines, size_t *len, char *msgid, size_t cap);

/* Same, with the To replaced by `to` (a forged or re-aimed reply). */
char *wt_mail_reply_to(struct wt_mailbox *mb, const struct wt_mail *orig, const char *from,
                       const char *to, const char *const *lines, size_t *len, char *msgid,
                       size_t cap);

/* Pipe msg[0..len) into `client --server url [--json] mail-in` run with env
 * (NULL-terminated "NAME=VALUE" list or NULL; see cli.h wt_home_init), as
 * an MTA would, within timeout_ms. Returns its exit code (-1: killed or
 * failed to start); *out and *err (may be NULL) get its output (caller
 * frees). Runs under WT_CLIENT_WRAPPER like every client of cli.h. */
int wt_mail_in(const char *client, const char *const *env, const char *url, int json,
               const char *msg, size_t len, int timeout_ms, char **out, char **err);

#endif
