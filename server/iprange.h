/*
 * iprange.h - IP addresses and ranges as the operator writes them
 * (192.0.2.7, 10.0.0.0/8, [2001:db8::1], fd00::/8) and as peers arrive
 * (struct sockaddr), for the lists that exempt or trust some of them: the
 * webhook allow-list (notify.c) and the trusted proxies (net.c).
 *
 * Pure: no state, no allocation, never the network (numeric forms only).
 * An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address it
 * maps, on both sides.
 */
#ifndef WRD_IPRANGE_H
#define WRD_IPRANGE_H

#include <stddef.h>
#include <sys/socket.h>

/* An address and its prefix length (the whole address: 32 or 128). */
struct wrd_iprange {
    int family;                 /* AF_INET or AF_INET6 */
    unsigned char addr[16];     /* network order; IPv4 in the first 4 */
    unsigned bits;
};

/* The family and bytes of sa (AF_INET, or AF_INET6; a mapped IPv6 address
 * as AF_INET); 0 for any other family (out untouched). */
int wrd_ip_bytes(const struct sockaddr *sa, unsigned char out[16]);

/* text (NUL-terminated) as an IP address, in any spelling the resolver
 * takes as numeric (inet_aton's for IPv4: 127.1, 0x7f.0.0.1; IPv6 with or
 * without a zone), into *ss. 0, or -1 when it is not one. */
int wrd_ip_parse(const char *text, struct sockaddr_storage *ss);

/* text[0..len) as a range: ADDRESS or ADDRESS/BITS, an IPv6 address
 * bracketed or not (a mapped range, ::ffff:10.0.0.0/104, is the IPv4 range
 * it maps). 0 with *r set; 1 when text is no IP address and has no '/' (a
 * caller may take it for a host name); -1 with *why (a constant sentence)
 * when it is a malformed range. */
int wrd_iprange_parse(const char *text, size_t len, struct wrd_iprange *r, const char **why);

/* Does r hold sa? 0 or 1 (0 for a family neither is). */
int wrd_iprange_has(const struct wrd_iprange *r, const struct sockaddr *sa);

/* The next item of a comma-separated list at *p (NUL-terminated): 1 with
 * *item and *len the item without the spaces and tabs around it (it may be
 * empty: a caller skips those) and *p past it; 0 at the end. */
int wrd_list_next(const char **p, const char **item, size_t *len);

/* A comma-separated list of addresses and ranges (no names; empty items
 * ignored) into out[0..max): their number, or -1 with *why (a constant
 * sentence) when an item is no range, or there are more than max. */
int wrd_iprange_list(const char *list, struct wrd_iprange *out, int max, const char **why);

/* The client a reverse proxy names in X-Forwarded-For: the last item of
 * the header's value hdr[0..len) (repeated headers joined by commas; the
 * items before it are what the client itself claimed, and are not
 * believed), an IP address in inet_pton's form (an IPv6 one bracketed or
 * not; no port, no zone). 0 with *ss set, or -1 when that item is no
 * address. */
int wrd_forwarded_client(const char *hdr, size_t len, struct sockaddr_storage *ss);

/* Do the first bits bits of a and prefix agree? */
int wrd_prefix_match(const unsigned char *a, const unsigned char *prefix, unsigned bits);

#endif
