/* play.c - interactive mode (placeholder while the one-shot commands are built). */
#include "commands.h"

#include <stdio.h>

int wrc_cmd_play(const struct wrc_opts *o, int argc, char **argv)
{
    (void)o; (void)argc; (void)argv;
    fprintf(stderr, "not yet\n");
    return 2;
}

int wrc_cmd_watch(const struct wrc_opts *o, int argc, char **argv)
{
    (void)o; (void)argc; (void)argv;
    return 2;
}
