/*
 * datadir.h - where warroomd and warroom find their scenarios when they are
 * not told: the one search order both programs share.
 *
 * A program whose executable lies in the build tree CMake configured uses
 * the source tree's scenarios/ (nothing need be installed to run it). An
 * installed program uses <bindir>/../share/warroom/scenarios, found from its
 * own executable (/proc/self/exe), so an install moved to another prefix
 * still works (the web client's files, web/, are found the same way); then the share directory of the prefix it was configured
 * with (CMAKE_INSTALL_PREFIX). What the user names ($WARROOM_SCENARIOS,
 * --scenarios, ./scenarios) comes before these; each program adds that
 * itself (client-cli/scenarios.c, server/config.c).
 *
 * This reads the file system (the executable's link, real paths), so it is
 * not in common/: it is its own library, warroom_datadir.
 */
#ifndef WR_DATADIR_H
#define WR_DATADIR_H

#include <stddef.h>

#define WR_DATADIR_MAX 2        /* at most this many directories */
#define WR_DATADIR_LEN 4096     /* bytes of each, NUL included */

/* The directories, best first; a caller's value (on its stack or in its
 * config), owned by it, holding no pointers. */
struct wr_datadirs {
    int n;                                      /* 1..WR_DATADIR_MAX */
    char dir[WR_DATADIR_MAX][WR_DATADIR_LEN];
};

/* Fill d with this program's scenario directories, best first, whether or
 * not they exist; always at least one. */
void wr_datadir_scenarios(struct wr_datadirs *d);

/* The same for the web client's files (web/ of the source tree, or
 * share/warroom/web): warroomd's default --web. */
void wr_datadir_web(struct wr_datadirs *d);

/* The first directory of d that exists, else the first of d. Points into
 * d. */
const char *wr_datadir_first(const struct wr_datadirs *d);

/* Folders as one line for messages, the one formatter of such lists:
 * "A", "A or B", "A, B or C"; a relative one shown as "./A". Truncated to
 * len. */
void wr_datadir_join(const char *const dirs[], int n, char *buf, size_t len);

#endif
