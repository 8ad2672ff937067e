/*
 * campaign_testdata.h - what the campaign's unit tests share: JSON written
 * with single quotes, and the small map they play on.
 */
#ifndef CT_CAMPAIGN_TESTDATA_H
#define CT_CAMPAIGN_TESTDATA_H

struct json_t;

/* A - B - C
 * |   |   |
 * D - E - F */
#define CT_GRID6 "{'warroom':'scenario','version':1,'ruleset':'campaign','name':'Grid',"   \
                 "'towns':[{'name':'A','x':0,'y':0,'adjacent':['B','D']},"                \
                 "{'name':'B','x':1,'y':0,'adjacent':['A','C','E']},"                      \
                 "{'name':'C','x':2,'y':0,'adjacent':['B','F']},"                          \
                 "{'name':'D','x':0,'y':1,'adjacent':['A','E']},"                          \
                 "{'name':'E','x':1,'y':1,'adjacent':['B','D','F']},"                      \
                 "{'name':'F','x':2,'y':1,'adjacent':['C','E']}]}"

/* The JSON of text with every ' read as ", duplicate keys refused: a new
 * reference; a text that is no JSON fails the running test. */
struct json_t *ct_jq(const char *text);

#endif
