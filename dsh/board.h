/* dsh: the commands for a board -- probe (cmd_probe.c); replay and the
 * journal are in journal.h. */
#ifndef DSH_BOARD_H
#define DSH_BOARD_H

#include "dsh.h"

int cmd_probe(struct dsh *d, struct dsh_args *a);

#endif
