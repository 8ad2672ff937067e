/*
 * commands.h - the sub-commands of warroom, one function each, argv[0]
 * being the command name. The client commands also get the options given
 * before the command name (struct wrc_opts: --server, --json).
 */
#ifndef WRC_COMMANDS_H
#define WRC_COMMANDS_H

struct wrc_opts;

int wrc_cmd_replay(int argc, char **argv);

/* oneshot.c */
int wrc_cmd_new(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_claim(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_status(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_do(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_wait(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_export(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_games(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_notify(const struct wrc_opts *o, int argc, char **argv);
/* exits with sysexits.h codes (0, EX_USAGE, EX_DATAERR, EX_TEMPFAIL), for MTAs */
int wrc_cmd_mail_in(const struct wrc_opts *o, int argc, char **argv);

/* play.c */
int wrc_cmd_play(const struct wrc_opts *o, int argc, char **argv);
int wrc_cmd_watch(const struct wrc_opts *o, int argc, char **argv);

#endif
