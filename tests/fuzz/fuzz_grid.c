/*
 * fuzz_grid.c - libFuzzer target for the square-name parser: any bytes
 * either fail cleanly or round-trip through wl_grid_name().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wl_sq s;
    if (wl_grid_parse((const char *)data, size, &s) == 0) {
        char buf[WL_SQ_NAME_MAX];
        wl_sq back;
        wl_grid_name(s, buf);
        if (wl_grid_parse(buf, (size_t)-1, &back) != 0 || back != s)
            abort();
        for (int d = 0; d < WL_NDIR; d++) {
            wl_sq n = wl_grid_neighbour(s, d);
            if (n != WL_SQ_NONE && wl_grid_distance(s, n) != 1)
                abort();
        }
    }
    return 0;
}
