/* sim: the fault model's interface for the shell (dsh's fault command).
 * Only the in-process emulator has one: with any other backend (remote
 * included) these return -DNET_ENOTSUP and say why.  The rule language is
 * described in faults.c and man/dsh.1 (fault). */
#ifndef SIM_FAULTS_H
#define SIM_FAULTS_H

#include <stdint.h>
#include "dnet/backend.h"

#define SIM_FAULT_INFO_RULES 32u
#define SIM_FAULT_INFO_KINDS 6u

struct sim_fault_info {
	uint64_t seed, rto_ns;
	unsigned nrules;
	char rule[SIM_FAULT_INFO_RULES][128];   /* each as the text the parser reads */
	uint64_t fired[SIM_FAULT_INFO_RULES];
	/* drop, dup, reorder, delay, corrupt, stall */
	uint64_t injected[SIM_FAULT_INFO_KINDS];
	/* sums over the cluster's nodes */
	uint64_t retransmissions, timeouts, duplicates_dropped, crc_errors, out_of_sequence;
	uint64_t acks_sent, naks_sent, unacked;
};

/* Add rules ("drop 5% from 1 to 2", "seed 7", several joined by ';' or '+'). */
int sim_fault_add(struct dnet_dev *dev, const char *rules, struct dnet_err *err);
/* Remove every rule (retransmission of what is still unacknowledged goes on). */
int sim_fault_clear(struct dnet_dev *dev, struct dnet_err *err);
int sim_fault_info(struct dnet_dev *dev, struct sim_fault_info *info, struct dnet_err *err);

#endif
