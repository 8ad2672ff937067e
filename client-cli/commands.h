/*
 * commands.h - the sub-commands of warroom, one function each:
 * int wrc_cmd_NAME(int argc, char **argv), argv[0] being the command name.
 */
#ifndef WRC_COMMANDS_H
#define WRC_COMMANDS_H

int wrc_cmd_replay(int argc, char **argv);
/* cmd_campaign.c */
int wrc_cmd_campaign_map(int argc, char **argv);
#define WRC_CAMPAIGN_MAP_ARGS "--scenario NAME [--state FILE] [--svg OUT]"
#define WRC_CAMPAIGN_MAP_SUMMARY \
    "a campaign's towns and owners as a list or an SVG map, its status and next commands"

#endif
