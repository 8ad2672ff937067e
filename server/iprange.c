/*
 * iprange.c - IP addresses and ranges: see iprange.h.
 */
#include "iprange.h"

#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

int wrd_prefix_match(const unsigned char *a, const unsigned char *prefix, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(a, prefix, whole) != 0)
        return 0;
    if (rest == 0)
        return 1;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (a[whole] & mask) == (prefix[whole] & mask);
}

int wrd_ip_bytes(const struct sockaddr *sa, unsigned char out[16])
{
    static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
    if (sa->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return AF_INET;
    }
    if (sa->sa_family != AF_INET6)
        return 0;
    const unsigned char *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
    if (memcmp(a, mapped, 12) == 0) {
        memcpy(out, a + 12, 4);
        return AF_INET;
    }
    memcpy(out, a, 16);
    return AF_INET6;
}

int wrd_ip_parse(const char *text, struct sockaddr_storage *ss)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    if (getaddrinfo(text, NULL, &hints, &res) != 0 || res == NULL) {
        /* An IPv6 literal with a zone the resolver does not know is still
         * an IPv6 literal (uv_inet_pton ignores the zone). */
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
        memset(ss, 0, sizeof *ss);
        if (strchr(text, ':') == NULL || uv_inet_pton(AF_INET6, text, &a6->sin6_addr) != 0)
            return -1;
        a6->sin6_family = AF_INET6;
        return 0;
    }
    int ok = res->ai_addrlen <= sizeof *ss;
    if (ok)
        memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return ok ? 0 : -1;
}

int wrd_iprange_parse(const char *text, size_t len, struct wrd_iprange *r, const char **why)
{
    char buf[256];
    memset(r, 0, sizeof *r);
    if (len >= sizeof buf) {
        *why = "an address or range is longer than 255 bytes";
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *slash = strchr(buf, '/');
    long bits = -1;
    if (slash != NULL) {
        char *end;
        *slash = '\0';
        bits = strtol(slash + 1, &end, 10);
        if (*end != '\0' || end == slash + 1 || bits < 0) {
            *why = "a range wants ADDRESS/BITS";
            return -1;
        }
    }
    char *addr = buf;
    size_t alen = strlen(addr);
    if (alen >= 2 && addr[0] == '[' && addr[alen - 1] == ']') {
        addr[alen - 1] = '\0';
        addr++;
    }
    struct sockaddr_storage ss;
    if (wrd_ip_parse(addr, &ss) != 0) {
        if (slash == NULL)
            return 1;
        *why = "a range does not start with an IP address";
        return -1;
    }
    r->family = wrd_ip_bytes((struct sockaddr *)&ss, r->addr);
    unsigned max = r->family == AF_INET ? 32 : 128;
    /* A mapped range (::ffff:10.0.0.0/104) is the IPv4 range it maps. */
    if (bits >= 0 && r->family == AF_INET && ss.ss_family == AF_INET6)
        bits -= 96;
    if (bits > (long)max || (slash != NULL && bits < 0)) {
        *why = "a range has more prefix bits than its address";
        return -1;
    }
    r->bits = bits >= 0 ? (unsigned)bits : max;
    return 0;
}

int wrd_iprange_has(const struct wrd_iprange *r, const struct sockaddr *sa)
{
    unsigned char a[16];
    int family = wrd_ip_bytes(sa, a);
    return family != 0 && family == r->family && wrd_prefix_match(a, r->addr, r->bits);
}

int wrd_list_next(const char **p, const char **item, size_t *len)
{
    const char *b = *p;
    if (b == NULL || *b == '\0')
        return 0;
    const char *comma = strchr(b, ',');
    const char *e = comma != NULL ? comma : b + strlen(b);
    *p = comma != NULL ? comma + 1 : e;
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *item = b;
    *len = (size_t)(e - b);
    return 1;
}

int wrd_iprange_list(const char *list, struct wrd_iprange *out, int max, const char **why)
{
    int n = 0;
    const char *item;
    size_t len;
    while (wrd_list_next(&list, &item, &len)) {
        if (len == 0)
            continue;
        if (n == max) {
            *why = "more addresses or ranges than the list may hold";
            return -1;
        }
        int rc = wrd_iprange_parse(item, len, &out[n], why);
        if (rc > 0)
            *why = "an item is neither an IP address nor a range (ADDRESS/BITS)";
        if (rc != 0)
            return -1;
        n++;
    }
    return n;
}

int wrd_forwarded_client(const char *hdr, size_t len, struct sockaddr_storage *ss)
{
    size_t b = len;
    while (b > 0 && hdr[b - 1] != ',')
        b--;
    size_t e = len;
    while (b < e && (hdr[b] == ' ' || hdr[b] == '\t'))
        b++;
    while (e > b && (hdr[e - 1] == ' ' || hdr[e - 1] == '\t'))
        e--;
    if (e - b >= 2 && hdr[b] == '[' && hdr[e - 1] == ']') {
        b++;
        e--;
    }
    char text[64];
    if (e == b || e - b >= sizeof text || memchr(hdr + b, '\0', e - b) != NULL)
        return -1;
    memcpy(text, hdr + b, e - b);
    text[e - b] = '\0';
    /* The strict forms (inet_pton's): a proxy writes addresses plainly,
     * and this runs on the loop for every connection it passes. */
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (uv_inet_pton(AF_INET, text, &a4->sin_addr) == 0) {
        a4->sin_family = AF_INET;
        return 0;
    }
    if (strchr(text, '%') == NULL && uv_inet_pton(AF_INET6, text, &a6->sin6_addr) == 0) {
        a6->sin6_family = AF_INET6;
        return 0;
    }
    return -1;
}
