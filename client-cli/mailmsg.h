/*
 * mailmsg.h - one mail message (RFC 5322, MIME: RFC 2045-2047) read for what
 * `warroom mail-in` sends the server: the recipients, the Message-ID and the
 * reply's own lines (the orders), as the play-by-email specification says
 * (issue 17; docs/protocol.md, mail_in, once the server side is in).
 *
 * A pure parser: no I/O, no globals, no libuv or libwebsockets; the same
 * bytes always give the same answer.
 *
 * What is read:
 *   - headers, unfolded, names compared without case; an mbox "From " line
 *     before them (procmail, .forward) is skipped;
 *   - recipients: the addresses of Delivered-To, X-Original-To,
 *     Envelope-To, To and Cc, in that order (each header in the order it
 *     occurs), display names, comments, group names and angle brackets
 *     dropped, de-duplicated without regard to case (the first spelling
 *     kept), those over WRC_MAIL_MAX_ADDR bytes or without '@' left out;
 *     the first WRC_MAIL_MAX_TO are kept (the MTA's own headers come first);
 *   - Message-ID without its brackets; Subject with RFC 2047 encoded words
 *     decoded; From's address;
 *   - the body: MIME multipart/ nested at most WRC_MAIL_MAX_DEPTH deep and
 *     at most WRC_MAIL_MAX_PARTS parts in all, boundaries as RFC 2046 says
 *     (preamble and epilogue ignored); the first text/plain part that is
 *     not an attachment, or without one the first text/html part, its tags
 *     removed; Content-Transfer-Encoding quoted-printable, base64, 7bit,
 *     8bit or binary; charsets UTF-8, US-ASCII, ISO-8859-1 and Windows-1252
 *     converted to UTF-8, any other read as UTF-8, every bad byte replaced
 *     by U+FFFD;
 *   - the reply's own lines: the text's lines, control characters made
 *     blanks, each trimmed of blanks, empty ones skipped, up to the first
 *     line that is a cut (the table in mailmsg.c): a quoted line ('>'), an
 *     attribution ending in "wrote:" (and the line before it when the
 *     attribution was wrapped, starting "On "), the signature separator
 *     "-- " or "--", "-----Original Message-----", a line of underscores
 *     (Outlook), a line starting "From: " after an empty line.
 *
 * Promises of a successful parse (tests/fuzz/fuzz_mailmsg.c checks them):
 * every line and address is valid UTF-8 of at most WRC_MAIL_MAX_LINE (or
 * WRC_MAIL_MAX_ADDR) bytes with no control character, no line starts with
 * '>', at most WRC_MAIL_MAX_LINES lines and WRC_MAIL_MAX_TO recipients.
 *
 * What is refused (the parse fails with a sentence): a message over
 * WRC_MAIL_MAX_BYTES, one that does not start with a header, MIME nested
 * too deep or with too many parts, a multipart without a boundary, a text
 * part in an encoding not listed, no text part at all, a Message-ID over
 * WRC_MAIL_MAX_ID bytes, and a reply of more than WRC_MAIL_MAX_LINES lines
 * or with a line longer than WRC_MAIL_MAX_LINE bytes (refused rather than
 * cut: a cut order list would be half a move).
 */
#ifndef WRC_MAILMSG_H
#define WRC_MAILMSG_H

#include <stddef.h>

#define WRC_MAIL_MAX_BYTES (1024 * 1024)   /* a whole message */
#define WRC_MAIL_MAX_LINES 100             /* the reply's own lines */
#define WRC_MAIL_MAX_LINE 1024             /* bytes of one line, as UTF-8 */
#define WRC_MAIL_MAX_TO 16                 /* recipients kept */
#define WRC_MAIL_MAX_ADDR 254              /* bytes of an address (RFC 5321) */
#define WRC_MAIL_MAX_ID 998                /* bytes of the Message-ID */
#define WRC_MAIL_MAX_DEPTH 5               /* multipart within multipart */
#define WRC_MAIL_MAX_PARTS 64              /* MIME parts in all */

struct wrc_mailmsg {
    char *message_id;           /* without <>, or NULL when there is none */
    char *subject;              /* decoded, or NULL */
    char *from;                 /* From's address, or NULL (never an authority) */
    char **to;                  /* nto recipients, in the order above */
    int nto;
    char **lines;               /* nlines lines of the reply, in order */
    int nlines;
};

/* Parse raw[0..len) (borrowed for the call; need not be NUL-terminated).
 * Returns 0 with *out filled (every string owned by *out: free it with
 * wrc_mailmsg_free()), or -1 with a sentence in err and *out empty (nothing
 * to free, though wrc_mailmsg_free() on it is harmless). */
int wrc_mailmsg_parse(const char *raw, size_t len, struct wrc_mailmsg *out, char *err,
                      size_t errlen);

/* Free what wrc_mailmsg_parse() put in m and empty it (m itself is the
 * caller's). */
void wrc_mailmsg_free(struct wrc_mailmsg *m);

#endif
