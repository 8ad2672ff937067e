/*
 * dlist.h - the server's doubly linked lists, written once: an element
 * holds its own two links, named by the list (a game is on the registry's
 * list by all_prev/all_next; a forward is on its game's list by
 * prev/next and on the list of all forwards by all_prev/all_next), and a
 * list is two lvalues, its first and its last element, NULL when empty.
 *
 *     WRD_DLIST_APPEND(net->first, net->last, h, prev, next);
 *     WRD_DLIST_REMOVE(net->first, net->last, h, prev, next);
 *
 * The arguments are evaluated more than once: they must be plain lvalues
 * without side effects. An element is on a list at most once; REMOVE
 * leaves its links NULL. O(1) each. WRD_CONTAINER_OF, below, finds the
 * struct an embedded element belongs to.
 */
#ifndef WRD_DLIST_H
#define WRD_DLIST_H

#include <stddef.h>

/* The struct of type `type` whose member `member` is at p: for a callback
 * given an embedded part (an address turn) to find what holds it. */
#define WRD_CONTAINER_OF(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

/* e after the last element. */
#define WRD_DLIST_APPEND(first, last, e, prev, next)                                      \
    do {                                                                                   \
        (e)->next = NULL;                                                                  \
        (e)->prev = (last);                                                                \
        if ((last) != NULL)                                                                \
            (last)->next = (e);                                                            \
        else                                                                               \
            (first) = (e);                                                                 \
        (last) = (e);                                                                      \
    } while (0)

/* e out of the list it is on. */
#define WRD_DLIST_REMOVE(first, last, e, prev, next)                                      \
    do {                                                                                   \
        if ((e)->prev != NULL)                                                             \
            (e)->prev->next = (e)->next;                                                   \
        else                                                                               \
            (first) = (e)->next;                                                           \
        if ((e)->next != NULL)                                                             \
            (e)->next->prev = (e)->prev;                                                   \
        else                                                                               \
            (last) = (e)->prev;                                                            \
        (e)->prev = (e)->next = NULL;                                                      \
    } while (0)

#endif
