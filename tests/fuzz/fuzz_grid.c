/*
 * fuzz_grid.c - libFuzzer target for the square-name parser: any bytes
 * either fail cleanly or round-trip through wr_grid_name().
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waterloo_grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wr_sq s;
    if (wr_grid_parse((const char *)data, size, &s) == 0) {
        char buf[WR_SQ_NAME_MAX];
        wr_sq back;
        wr_grid_name(s, buf);
        if (wr_grid_parse(buf, (size_t)-1, &back) != 0 || back != s)
            abort();
        for (int d = 0; d < WR_NDIR; d++) {
            wr_sq n = wr_grid_neighbour(s, d);
            if (n != WR_SQ_NONE && wr_grid_distance(s, n) != 1)
                abort();
        }
    }
    return 0;
}
