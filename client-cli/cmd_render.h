/*
 * cmd_render.h - "warroom render": draw a scenario, or a game state on its
 * board, as SVG or as terminal text. The drawing is render.c's; this module
 * finds the files, reads them and writes the result.
 */
#ifndef WR_CMD_RENDER_H
#define WR_CMD_RENDER_H

/* The sub-command: argv[0] is "render". Returns the process exit code:
 * 0 done, 1 a file could not be read or loaded (or the output written),
 * 2 a usage error (unknown option, bad square, bad radius). */
int wr_cli_render(int argc, char **argv);

/* Arguments and summary for warroom --help. */
#define WR_CLI_RENDER_ARGS "[--scenario FILE|NAME] [--state FILE] [--svg OUT.svg | --text] " \
                           "[--center SQ [--radius N]] [--no-color]"
#define WR_CLI_RENDER_SUMMARY "draw the board and units as SVG or terminal text"

#endif
