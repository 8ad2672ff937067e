/*
 * cmd_render.h - "warroom render": draw a game of any ruleset (a scenario
 * at its start, a state, the end of a record) as SVG or as terminal text.
 * The drawing is the ruleset's presentation's (present.h); this module finds
 * the files, reads them and writes the result.
 */
#ifndef WR_CMD_RENDER_H
#define WR_CMD_RENDER_H

/* The sub-command: argv[0] is "render". Returns the process exit code:
 * 0 done, 1 a file could not be read or loaded (or the output written),
 * 2 a usage error (an unknown option, a bad --cols or --rows). */
int wr_cli_render(int argc, char **argv);

/* Arguments and summary for warroom --help. */
#define WR_CLI_RENDER_ARGS "[--scenario FILE|NAME] [--state FILE] [--svg OUT.svg | --text | " \
                           "--report OUT.html] [--cols N] [--rows N] [--no-color]"
#define WR_CLI_RENDER_SUMMARY "draw the board of any game as SVG or terminal text, or a " \
                              "played game's report as HTML"

#endif
