/*
 * fuzz_forwarded.c - libFuzzer target for what a reverse proxy's request
 * brings (server/iprange.h): the X-Forwarded-For value it passes on
 * (wrd_forwarded_client), the client's own items included, and the same
 * bytes read as an operator's list of addresses and ranges
 * (wrd_iprange_list, as --trusted-proxy and --webhook-allow read it).
 *
 * The promises: no read outside the input; a client found is an IPv4 or
 * IPv6 address, and a whole-address range made of it holds it; a list
 * parsed is within its bound, each range of a known family with no more
 * prefix bits than its address has, and holds the address it was written
 * with.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iprange.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond) do { if (!(cond)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the header's value as lws gives it: exactly size bytes (a copy, so a
     * read past it is caught) */
    char *hdr = malloc(size ? size : 1);
    if (hdr == NULL)
        return 0;
    memcpy(hdr, data, size);
    struct sockaddr_storage ss;
    if (wrd_forwarded_client(hdr, size, &ss) == 0) {
        check(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
        struct wrd_iprange r = { 0 };
        r.family = wrd_ip_bytes((struct sockaddr *)&ss, r.addr);
        check(r.family == AF_INET || r.family == AF_INET6);
        r.bits = r.family == AF_INET ? 32 : 128;
        check(wrd_iprange_has(&r, (struct sockaddr *)&ss) == 1);
    }
    free(hdr);

    char list[512];
    size_t n = size < sizeof list - 1 ? size : sizeof list - 1;
    memcpy(list, data, n);
    list[n] = '\0';
    struct wrd_iprange out[4];
    const char *why = NULL;
    int count = wrd_iprange_list(list, out, 4, &why);
    check(count >= -1 && count <= 4);
    check(count >= 0 || why != NULL);
    for (int i = 0; i < count; i++) {
        check(out[i].family == AF_INET || out[i].family == AF_INET6);
        check(out[i].bits <= (out[i].family == AF_INET ? 32u : 128u));
        /* the range holds its own address */
        struct sockaddr_storage a;
        memset(&a, 0, sizeof a);
        if (out[i].family == AF_INET) {
            ((struct sockaddr_in *)&a)->sin_family = AF_INET;
            memcpy(&((struct sockaddr_in *)&a)->sin_addr, out[i].addr, 4);
        } else {
            ((struct sockaddr_in6 *)&a)->sin6_family = AF_INET6;
            memcpy(&((struct sockaddr_in6 *)&a)->sin6_addr, out[i].addr, 16);
        }
        check(wrd_iprange_has(&out[i], (struct sockaddr *)&a) == 1);
    }
    return 0;
}
