/* dsh: the command table.  help, completion and the man page's command list
 * (checked by tests/shell/test_dsh_help.sh) all come from here; each
 * entry's last string (args) says what its words are, which completion,
 * help's arguments: line and the check's word counts read (complete.c,
 * D-CMD-ARGS).
 */
#include <string.h>
#include "dsh.h"
#include "board.h"
#include "journal.h"

#define NODEV DSH_C_NODEV

static const struct dsh_cmd cmds[] = {
	/* ---- the original commands (Appendix C), same syntax and output ---- */
	{ "evpbuf_read", { "lhb_read" }, cmd_evpbuf_read, "evpbuf_read [Offset] [Size(Byte)]",
	  "LH Buffer Read", "evpbuf_read 0 64", NULL, DSH_C_ARITY,
	  "Dump Size bytes of the LH Buffer (4 KB per WID) from Offset. Offset and Size are multiples of 8.\n"
	  "Defaults: Offset 0, Size 64. The LH Buffer is write-back: the lines are flushed before reading.",
	  "OFFSET? SIZE?" },
	{ "help", { "h" }, cmd_help, "help [Command]",
	  "Show help", "help prim", NULL, NODEV | DSH_C_ARITY,
	  "Without argument: every command with its syntax. With a command: usage, details and an example.",
	  "<cmd>?" },
	{ "llcm_read", { 0 }, cmd_llcm_read, "llcm_read [Offset] [Size(Byte)]",
	  "LLCM Read", "llcm_read 0 64", NULL, DSH_C_ARITY,
	  "Dump Size bytes of the LLCM (32 KB per WID) from Offset (multiples of 8; default 0 64).",
	  "OFFSET? SIZE?" },
	{ "llcm_write", { 0 }, cmd_llcm_write, "llcm_write from=[Offset] it=[Iteration] val=[Value] inc=[Increment]",
	  "LLCM Write", "llcm_write from=0 it=10 val=0xaaaa0000 inc=1", "from= it= val= inc=", DSH_C_POSTED,
	  "Write the 32-bit Value Iteration times to consecutive 4-byte addresses from Offset, adding\n"
	  "Increment after each write (mod 2^32). Keys in any order; from=0 it=1 inc=0 when omitted.\n"
	  "Into the synchronisation area where it is reserved only with 'force' (see barrier).",
	  "" },
	{ "prim", { 0 }, cmd_prim,
	  "prim PRIM [dt=] [it=] [dw=] [dl=] [ef=] [size=] [src=] [dst=] [rf=0|1] [xot= xdt= xit= xsize=] [wwsize= wwaddr=] [timeout=] [allow=FLAG,...] [force] [wait]",
	  "Issue a primitive", "prim VS dt=0 it=0 dw=0 dl=0 ef=0 size=0x200 src=0x400 dst=0x600",
	  "dt= it= dw= dl= ef= size= src= dst= rf= xot= xdt= xit= xsize= ww= wwsize= wwaddr= timeout= allow=", 0,
	  "PRIM is one of NOP BOTF VL VLS VLI VS VSS VSI RVL RVLS RVLI RVS RVSS RVSI IPUSH LHSv1 LHSv2.\n"
	  "Prints the request as cmd:<Upper>_<Lower> (hex, no leading zeros). Parameters a primitive does\n"
	  "not use may be omitted (they are 0). rf=1 issues through Command1 (remote data received into the\n"
	  "Prefetch Window) instead of Command0 (SO-DIMM). xot= xdt= xit= xsize= give the Command Ex word\n"
	  "(RVS/RVL/IPUSH families): dsh then writes Command Ex Flag = 1, issues the 192-bit request and\n"
	  "writes Command Ex Flag = 0 again; an ex:<word> line is printed. BOTF takes ww= and size= only\n"
	  "(or use the botf command). LHSv2 also takes wwsize= wwaddr= to pack Upper (Fig. 7.8).\n"
	  "A trailing 'wait' waits (timeout=, default 1s) for the primitive's family counter to advance\n"
	  "and the node to go idle, then reports the time, Controller Status and the counter. The command\n"
	  "fails if the primitive caused an error (ww<N>_src_overrun, ww<N>_dst_overrun, rc_overrun,\n"
	  "rc_state, status_full, pgid_drop, unroutable, rx_drop) on the issuing or the receiving node, also one\n"
	  "whose flag was already up (dsh(1) VERDICTS). Without 'wait' the verdict is pending, its own:\n"
	  "the next wait judges it once it has finished, or the end of the run does. allow=FLAG,...\n"
	  "names flags a test provokes on purpose (with or without 'wait'): they do not fail this\n"
	  "primitive, it fails if one of them does not rise for it, and they cover no other primitive.\n"
	  "Offsets the hardware would wrap or cut without a flag (PW offsets past 0x7ff or the window\n"
	  "end, SO-DIMM reads past the area, BOTF over 512 bytes) are refused unless 'force' is given,\n"
	  "as are dl= outside the unicast CLIDs 0x001-0xbff (Tab. 4.6: 0xc00-0xffe are multicast groups,\n"
	  "which the emulated switch drops) and VLI/VSI with the SO-DIMM copy marker 0xffffffff (§4.6.8\n"
	  "excludes list access from copies).",
	  "<prim> {force,wait}..." },
	{ "pw_read", { 0 }, cmd_pw_read, "pw_read [PW#(0-3)] [Size(Byte)]",
	  "Prefetch Window Read", "pw_read 0 64", NULL, DSH_C_ARITY,
	  "Dump Size bytes (multiple of 8, at most 512; default 512) of Prefetch Window PW#.\n"
	  "The lines are flushed before reading (write-back region).",
	  "{0,1,2,3} SIZE?" },
	{ "quit", { "q", "exit" }, cmd_quit, "quit [N]", "Quit dsh", "q", NULL, NODEV | DSH_C_ARITY,
	  "Ends the session, or the whole run in a script (also from a sourced file or a repeat block).\n"
	  "Earlier failures still count: after one, quit 0 exits 1 (the failure wins); quit N with N > 0\n"
	  "exits N and fails the run. quit 0 in a sourced file, or in any but the last -c/-f source, fails\n"
	  "(the rest of the run would not run).\n"
	  "Ctrl-D at the prompt does the same as quit.",
	  "N?" },
	{ "rllcm_write", { 0 }, cmd_rllcm_write, "rllcm_write [Dclid] [Offset] [Value] [dw=] [ww=] [ef=]",
	  "Remote LLCM Write", "rllcm_write 2 0x100 0x1234", "dw= ww= ef=", 0,
	  "Write the 64-bit Value into the LLCM of process dw= (default 0) on the node with CLID Dclid, at\n"
	  "Offset (multiple of 8). Sent as a BOTF packet image from Write Window ww= (default 0): an RVS\n"
	  "header with lflag = 1 and 8 bytes of data. ef=1 asks for a receive status. Into the\n"
	  "synchronisation area where it is reserved only with 'force' (see barrier).",
	  "DCLID OFFSET VALUE" },
	{ "sreg_read", { 0 }, cmd_sreg_read, "sreg_read [Option]",
	  "System Register Read", "sreg_read sma_lid", NULL, DSH_C_ARITY,
	  "Options: sma_lid (the only readable System Register). Reading ctl_reset would reset the\n"
	  "controller and is refused.",
	  "<sreg.r>" },
	{ "sreg_write", { 0 }, cmd_sreg_write, "sreg_write [Option] [Value] | sreg_write amt addr=[LLCM Address] wid=[Wid] lid=[Lid]",
	  "System Register Write", "sreg_write mtu 0x8", NULL, 0,
	  "Options: amt sdimm_init sdimm_capacity mtu sma_reset lid pgid0 pgid1 ctl_reset (clt_reset).\n"
	  "Values with bits outside the register are rejected. Value may be omitted for sma_reset and\n"
	  "ctl_reset. dsh keeps a shadow of every value written (see reg, dump sreg).",
	  "amt {addr=,wid=,lid=}... | <sreg.w> VALUE?" },
	{ "ureg_read", { 0 }, cmd_ureg_read, "ureg_read [Option]",
	  "User Register Read", "ureg_read ctl_status", NULL, DSH_C_ARITY,
	  "Options: ctl_status prim_counter pw_flag pkt_counter evpbuf_nwa module_state status_nwa.\n"
	  "module_state and prim_counter are decoded as in the thesis (Fig. C.13, C.14); use reg for\n"
	  "a full field decode of any register.",
	  "<ureg.r>" },
	{ "ureg_write", { 0 }, cmd_ureg_write, "ureg_write [Option] [Value]",
	  "User Register Write", "ureg_write prim_counter_reset 1", NULL, DSH_C_ARITY,
	  "Options: prim_counter_reset pkt_counter_reset ivs_area_size evpbuf_nra status_initial_addr\n"
	  "status_area_size status_nra cmd_ex_flag. Value may be omitted for the two counter resets.",
	  "<ureg.w> VALUE?" },
	{ "version", { "v" }, cmd_version, "version [full]",
	  "Show version", "v", NULL, NODEV | DSH_C_ARITY,
	  "Prints the original version line; 'version full' adds the dsh, libdnet and backend versions.",
	  "{full}?" },
	{ "ww_write", { 0 }, cmd_ww_write, "ww_write ww=[WW#(0-3)] from=[Offset] it=[Iteration] val=[Value] inc=[Increment]",
	  "Write Window Write", "ww_write ww=0 from=0 it=10 val=0xaaaa0000 inc=1", "ww= from= it= val= inc=", DSH_C_POSTED,
	  "Write 32-bit values into Write Window WW# as llcm_write does (the window is 512 bytes).\n"
	  "The Write Window is write-only: dsh keeps a host-side shadow (dump ww).",
	  "" },

	/* ---- extensions ---- */
	{ "dump", { "x" }, cmd_dump, "dump REGION [Offset] [Size]",
	  "Dump a region", "dump llcm 0x100 32", NULL, DSH_C_ARITY,
	  "REGION: ww (host-side shadow of what dsh wrote: the window is write-only; words it did not\n"
	  "write show as question marks), pw, llcm, lhb,\n"
	  "ureg and sreg (every register: readable ones read, write-only ones from dsh's shadow, marked),\n"
	  "sodimm (the current WID's SO-DIMM area: through the emulator's backdoor when the backend has\n"
	  "one, otherwise by VL into Prefetch Window 3, which it overwrites). Offset/Size multiples of 8; for ww pw\n"
	  "llcm lhb multiples of 4 give a dump of 32-bit words (32-bit reads).",
	  "{ww,pw,llcm,lhb,ureg,sreg,sodimm} OFFSET? SIZE?" },
	{ "sodimm", { 0 }, cmd_sodimm, "sodimm read OFF [SIZE] | sodimm write OFF WORD...",
	  "SO-DIMM read/write", "sodimm write 0x1000 0x1122334455667788", NULL, 0,
	  "Read or write the current WID's SO-DIMM area (64-bit words). Uses the emulator backdoor when\n"
	  "available; otherwise reads by VL into PW#3 and writes through WW#3 + VS (both clobbered).\n"
	  "read: SIZE defaults to 64, at most 65536. OFF and SIZE are multiples of 8.",
	  "read OFFSET SIZE? | write OFFSET WORD..." },
	{ "reg", { "r" }, cmd_reg, "reg [NAME[.FIELD] [= VALUE] | PATTERN | NAME confirm]",
	  "Register read/write by name with field decode", "reg ctl_status.status_empty", NULL, 0,
	  "Without arguments: list every register. NAME: read (full bit-field decode). NAME.FIELD: that\n"
	  "field. NAME = V writes the register; NAME.FIELD = V does read-modify-write of the field (the\n"
	  "base is the shadow for write-only registers) and reads back. Write-only registers show dsh's\n"
	  "shadow of the last value it wrote, marked as such. PATTERN (with * ? [...], quoted or not):\n"
	  "every matching register on one line each, e.g. reg ctl_* or reg '*counter*'. A register whose\n"
	  "read acts (ctl_reset: any access resets the controller) is read only with 'reg NAME confirm'\n"
	  "(a reset passes only when the counters it clears read 0 after it).",
	  "<reg> = VALUE | <reg> confirm" },
	{ "snapshot", { "snap" }, cmd_snapshot, "snapshot NAME",
	  "Save all readable registers", "snapshot before", NULL, DSH_C_ARITY,
	  "Reads every readable register (User Register of the current WID and System Register) of the\n"
	  "current node and stores them under NAME, with the shadows of write-only registers.",
	  "NAME" },
	{ "diff", { 0 }, cmd_diff, "diff A [B]",
	  "Compare snapshots", "diff before", NULL, DSH_C_ARITY,
	  "Shows registers (and fields) that differ between snapshot A and snapshot B, or the current state.",
	  "<snap> <snap>?" },
	{ "watch", { 0 }, cmd_watch, "watch REG[.FIELD] [INTERVAL] [COUNT]",
	  "Sample a register", "watch ctl_status.status_empty 1us 5", NULL, DSH_C_ARITY,
	  "Reads the register every INTERVAL (default 1ms; virtual time on the emulator) COUNT times\n"
	  "(default 10), printing time and value; changes are marked with '*'.",
	  "<reg> INTERVAL? COUNT?" },
	{ "status", { 0 }, cmd_status, "status [OFFSET | ring]",
	  "Decode packet receive status entries", "status ring", NULL, DSH_C_ARITY,
	  "status OFFSET decodes the 16-byte receive status at LLCM OFFSET. status ring (default) decodes\n"
	  "the entries between Head (dsh's shadow of status_nra, or the ring start) and Tail (status_nwa).",
	  "{ring,OFFSET}?" },
	{ "lh", { 0 }, cmd_lh, "lh [INDEX | ring]",
	  "Decode LH Buffer entries", "lh 0", NULL, 0,
	  "lh INDEX decodes LH Buffer entry INDEX (0-63); lh ring decodes Head..Tail.",
	  "{ring,INDEX}?" },
	{ "decode", { 0 }, cmd_decode, "decode req|hdr|status|lh|REG WORD...",
	  "Decode words without touching the device", "decode req 0x20000000008 0x60000000400", NULL, NODEV,
	  "decode req LOWER [UPPER [EX]], decode hdr DW1 [DW2 [DW3 [DW4]]], decode status LO HI,\n"
	  "decode lh W0 ... W7, decode REGISTER VALUE.",
	  "{req,hdr,status,lh,<reg>} WORD..." },
	{ "botf", { 0 }, cmd_botf,
	  "botf [ww=] type=T [dl=] [dw=] [pgid=] [dt=] [it=] [rf=] [ef=] [hf=] [lf=] [src=] [dst=] [total=] [stride=] [data=W,W,...] [size=] [send=0|1]",
	  "Build a packet image and send it with BOTF", "botf type=RVS dl=2 dst=0x100 lf=1 data=0x1234", 
	  "ww= type= dl= dw= pgid= dt= it= rf= ef= hf= lf= src= dst= total= stride= xot= xdt= xit= xsize= data= size= send=", 0,
	  "Builds the header (1st-4th DW, libdnet packet codec) and the data words (64-bit, comma separated)\n"
	  "into Write Window ww= (default 0), prints it, and issues BOTF with size= (default: the image\n"
	  "size). type= is a primitive name or code; dl= the destination CLID (expanded to the LID).\n"
	  "The controller overwrites PGID and the packet size. send=0 only builds and prints.",
	  "" },
	{ "barrier", { 0 }, cmd_barrier, "barrier [timeout=DURATION]",
	  "Wait until every rank of the run has reached this barrier", "barrier timeout=10s", "timeout=", DSH_C_ARITY,
	  "A dissemination barrier on the device: in log2(size) rounds each rank stores a flag word into\n"
	  "a peer's LLCM (an RVS packet with lflag = 1, sent by BOTF from Write Window 3) and polls its own\n"
	  "LLCM. Flag words carry the run's generation and the barrier's number, so back-to-back barriers\n"
	  "and earlier runs cannot be confused; a rank's first barrier, signal or waitfor joins the run\n"
	  "(rank 0's waits until every rank has joined; see dsh(1), RANKS AND SYNCHRONISATION). A timeout\n"
	  "(default 30 s of real time) names the rank that did not arrive.\n"
	  "Rank and size come from dsh-run or the launcher (mpirun, srun, pdsh); $rank and $size hold them.\n"
	  "The flags live in the synchronisation area, LLCM 0x7000-0x7fff unless set sync_area moves it;\n"
	  "in a run of several ranks, or once barrier, signal or waitfor ran, writes into it need 'force'.",
	  "" },
	{ "signal", { 0 }, cmd_signal, "signal RANK [timeout=DURATION]",
	  "Signal rank RANK (point to point)", "signal 1", "timeout=", DSH_C_ARITY,
	  "Store the next count of signals to RANK into its LLCM flag word for this rank; RANK's\n"
	  "'waitfor' of this rank then returns. Counts, so several signals are never merged.",
	  "RANK" },
	{ "waitfor", { 0 }, cmd_waitfor, "waitfor RANK [timeout=DURATION]",
	  "Wait for the next signal from rank RANK", "waitfor 0 timeout=5s", "timeout=", DSH_C_ARITY,
	  "Poll this rank's LLCM flag word for RANK until RANK's next 'signal' arrives; a timeout\n"
	  "(default 30 s of real time) names the rank.",
	  "RANK" },
	{ "bench", { 0 }, cmd_bench, "bench [E1 ... E9 | all] [quick] [json=FILE] [out=DIR] [trace=FILE] [traces=FILE|DIR] [coll=rd|binomial|none] [partners=recv|any] [ranks=N] [timing.NAME=VALUE...]",
	  "Re-run the thesis's evaluation (E1-E9) on the emulator's timing model", "bench E1 E5 json=bench.json", "json= out= trace= traces= coll= partners= ranks= timing.", 0,
	  "Each experiment (thesis ch. 6-7, docs/timing-model.md) runs on its own two-node emulator whose hosts have their own\n"
	  "virtual clocks (sim timelines), host programs written as the thesis's host runs them. One line per\n"
	  "headline figure: the model's value, the thesis's (calibration) or 'withheld' (a prediction), and\n"
	  "the difference; under each prediction, its mechanism and the constants it rests on; a last line\n"
	  "sums up the calibration points' residuals apart from the predictions.\n"
	  "quick: fewer sizes. json=FILE: every curve and value. out=DIR: a .dat and .gp per\n"
	  "figure, and PNG and SVG when gnuplot is installed. trace=FILE (one experiment): its first run\n"
	  "writes a Chrome trace-event JSON (Perfetto). Independent of the shell's backend.\n"
	  "timing.NAME=VALUE (repeatable): a step cost of the model set in every emulator the run opens, a\n"
	  "what-if (params lists them as timing.*; the JSON names them in timing_overrides).\n"
	  "E8 (IPUSH receive area, Table 7.3) runs no emulator: per application P = the most distinct\n"
	  "partners of any process, IPUSH area (P+1) x N against PUSH's 64 x N. Built in: the point-to-point\n"
	  "traffic of NPB 3.3 MPI Class A (MG CG IS LU SP BT, 64 ranks) generated from their decomposition\n"
	  "code; out=DIR also writes those traces (e8-APP.trace). traces=FILE|DIR reads traces\n"
	  "instead: one message per line 'src dst bytes' (decimal, '#' comments), or SimGrid time-independent\n"
	  "traces ('[p]RANK send DST BYTES', collectives, ...); one application per file.\n"
	  "coll=rd|binomial|none: MPI collectives as recursive-doubling or binomial (MPICH-1, default) messages,\n"
	  "or left out; partners=recv (senders, default) or any (senders and receivers); ranks=N (64).",
	  "{<bench>,all,quick}..." },
	{ "amt", { 0 }, cmd_amt, "amt [INDEX [head=H] [tail=T] [force] | map CLID WID INDEX]",
	  "Show and set AMT entries and the AMT Address Table", "amt map 1 0 256", "head= tail=", 0,
	  "amt INDEX shows AMT entry INDEX, the LLCM word at 8 x INDEX: Head [31:0], Tail [63:32] and, when\n"
	  "this shell set ivs_area_size, the ring's bytes in use. amt INDEX head=H tail=T writes either half\n"
	  "(force: also inside the synchronisation area where it is reserved, see barrier).\n"
	  "amt map CLID WID INDEX writes the AMT Address Table (System Register, App. B): IPUSH packets from\n"
	  "sender {CLID, WID} use entry INDEX. The table is write-only: amt alone lists what this shell\n"
	  "mapped.",
	  "map CLID WID INDEX | INDEX force?" },
	{ "send", { 0 }, cmd_send, "send RANK TAG [size=BYTES] [val=SEED] [via=auto|botf|lhsv1|lhsv2|rndv]",
	  "Send a message to rank RANK (IPUSH/LHS, chapter 7)", "send 1 5 size=1000 val=7 via=lhsv2",
	  "size= val= via=", 0,
	  "Send size bytes (default 8; byte i = SEED + i mod 256) with tag TAG through libdnet's reference\n"
	  "messaging layer: via=botf one BOTF packet image (at most 488 bytes), lhsv1/lhsv2 IPUSH with LHS\n"
	  "from the SO-DIMM, rndv a rendezvous (request-to-send, the receiver pulls the body with RVL,\n"
	  "completion; up to 8 MB), auto BOTF up to 488 bytes, LHSv2 up to 16 KB, rndv above. Returns once\n"
	  "the hardware sent it (rndv: once the receiver's completion came).\n"
	  "Ranks: under dsh-run or a launcher this shell is $rank; alone, node N is rank N-1 and the current\n"
	  "node sends. The first send or recv sets up the AMT, the rings and the LH Buffer of every rank\n"
	  "driven here (256 KB ring per sender from SO-DIMM 16 MB, AMT entries from LLCM word 256); under\n"
	  "a launcher it is collective (a barrier): every rank must send or receive at least once.",
	  "RANK TAG" },
	{ "recv", { 0 }, cmd_recv, "recv RANK|any [TAG|any] [size=BYTES] [check=SEED]",
	  "Receive a message (from the LH Buffer)", "recv 0 5 check=7", "size= check=", 0,
	  "Wait (timeout: 'set timeout') for the oldest message from RANK (or any) with TAG (or any), in\n"
	  "the order each sender sent. Prints source, tag, size and transport (and the first 16 bytes);\n"
	  "sets last to the size. check=SEED fails the command unless every byte i is SEED + i mod 256;\n"
	  "a message larger than size= (default 16 MB) is truncated and fails the command.",
	  "{RANK,any} {TAG,any}?" },
	{ "peek", { 0 }, cmd_peek, "peek REGION OFFSET [width=8|16|32|64]",
	  "Read one value at a region offset", "peek llcm 0x100 width=32", "width=", 0,
	  "One read of width= 8, 16, 32 or 64 bits (default 64) at OFFSET of REGION (pw llcm lhb ureg sreg)\n"
	  "of the current WID, aligned to its width: devmem's one read, at a region offset instead of a\n"
	  "physical address, the width a keyword (a width by position is refused: devmem's order and this\n"
	  "shell's old one differ). Registers are read 64 bits at a time only (§4.2.1). A register that\n"
	  "cannot be read (write-only) or whose read acts (Controller Reset) is refused, as by 'reg'; the\n"
	  "Write Window is write-only. Sets last.",
	  "{pw,llcm,lhb,ureg,sreg} OFFSET" },
	{ "poke", { 0 }, cmd_poke, "poke REGION OFFSET VALUE [width=8|16|32|64] [force]",
	  "Write one value at a region offset", "poke llcm 0x100 0xabcd width=32", "width=", DSH_C_POSTED,
	  "One write of VALUE, width= 8, 16, 32 or 64 bits (default 64), at OFFSET of REGION (ww llcm ureg\n"
	  "sreg): devmem's one write, but VALUE before the width and the width a keyword. A width by\n"
	  "position is refused, nothing written: 'poke llcm 0 64 32' is 64 at width 32 for this shell's\n"
	  "old order and 32 at width 64 for devmem's (ADDRESS WIDTH VALUE). The value must fit the width,\n"
	  "and a whole register's implemented bits; registers take 64-bit writes only; read-only\n"
	  "registers, the Prefetch Window and the LH Buffer are refused; the LLCM synchronisation area\n"
	  "needs 'force' where it is reserved (see barrier).",
	  "{ww,llcm,ureg,sreg} OFFSET VALUE force?" },
	{ "probe", { 0 }, cmd_probe, "probe [sysfs=PATH] [dump=FILE] [id=VVVV:DDDD,...]",
	  "Where a board can be: chipset, DIMM decode, PCI BARs", "probe", "sysfs= dump= id=", NODEV,
	  "With libpci: names the host bridge and memory controllers (vendor, device, names from the PCI ID\n"
	  "database); for chipsets whose DRAM decode registers are public (Intel 82865/82875: DRB) the\n"
	  "physical range each DIMM row decodes, the devmem base to try once the range is reserved; and\n"
	  "devices exposing a memory BAR large enough for the map (memory controllers of class 0580,\n"
	  "processing accelerators, or the ids given by id= or $DNET_PCI_IDS) with the pci backend spec.\n"
	  "sysfs= reads another sysfs tree, dump= an 'lspci -x' dump (libpci's dump method).",
	  "" },
	{ "replay", { 0 }, cmd_replay, "replay FILE",
	  "Run a journal, report the first divergence", "replay board.journal", NULL, 0,
	  "Runs the device accesses of a journal written with --journal FILE (on a board, a stand-in or\n"
	  "the emulator) on the current backend, normally the emulator, in order: writes, waits (with\n"
	  "their timeouts), delays and flushes as recorded; every read, block read and busy query is\n"
	  "compared with the journal, and so is whether each operation succeeded. The first divergence\n"
	  "fails the command naming the journal line, the address and both values. The recorded\n"
	  "session's own verdict (the end record's) is said beside it; replaying a session that failed\n"
	  "fails. Real hardware is refused. From the command line: dsh replay FILE.",
	  "<file>" },
	{ "wait", { 0 }, cmd_wait, "wait [all] [allow=FLAG,...] | wait TARGET [& MASK] OP VALUE [timeout=DUR]",
	  "Wait for idle or for a condition", "wait ctl_status.ww2_done == 1 timeout=1ms", "timeout= allow=", 0,
	  "wait: until the current node has nothing in flight; wait all: every node; then the primitives\n"
	  "issued without wait that have finished are judged, each on its own with its own allow= (it\n"
	  "fails naming each that caused an error); one still in flight (issued on another node, its\n"
	  "packets on the way) stays pending for the next wait, wait all or the end of the run.\n"
	  "allow=FLAG,...: the one pending primitive, waited for until it has finished, judged with those\n"
	  "flags allowed (a primitive that completes only after the host acts, as a receiver whose status\n"
	  "ring is full). With a condition (see assert for TARGET): until it holds; the value it ends on\n"
	  "is checked as assert checks a read (reserved bits set fail both). Times out after timeout=\n"
	  "(default 1s; virtual time on the emulator) with an error.",
	  "{all}? | <cond> WORD..." },
	{ "node", { 0 }, cmd_node, "node [K]", "Show or change the current node", "node 2", NULL, DSH_C_ARITY,
	  "Nodes are numbered 1..N (their CLID on the emulator). '@K cmd' runs one command on node K.",
	  "NODE?" },
	{ "info", { 0 }, cmd_info, "info", "Backend, nodes, WID, settings", "info", NULL, DSH_C_ARITY,
	  "Prints the backend and its capabilities, the nodes, NPROCS/PID/WID and the settings\n"
	  "(gap, base, timeout).",
	  "" },
	{ "stat", { 0 }, cmd_stat, "stat [NAME]", "Backend statistics", "stat vtime_ns", NULL, DSH_C_ARITY,
	  "Without NAME: every statistic the backend keeps (the emulator: virtual time, packets,\n"
	  "drops...). With NAME: that one, also kept as the last result ($_, assert last).",
	  "<stat>?" },
	{ "fault", { 0 }, cmd_fault,
	  "fault [show | clear | seed N | rto DUR | KIND [RATE] [from N] [to N] [for DUR] [nth K] [every K] [count C] [data|acks]]",
	  "Faults in the emulated switch", "fault drop 5% from 1 to 2", NULL, 0,
	  "The emulator's, in-process or a dnetd's (adding or clearing rules there needs a privileged\n"
	  "client); the fault.* and swif.* parameters underneath (params). Adds a rule to the switch: KIND is drop, dup, reorder, delay, corrupt or stall;\n"
	  "RATE (5%, 0.5%, 1/20, 0.05) of the matching packets, or by rule the nth / every kth of them,\n"
	  "at most count times; from/to pick the link by its end nodes; data or acks limits a rule to\n"
	  "data packets or SWIF's ACK/NAK packets. for DUR: how late a reordered packet arrives (3us),\n"
	  "how long a delayed link holds (2us), how late a duplicate follows (100ns), how long a stalled\n"
	  "receiver takes nothing (20us). SWIF retransmits end to end (timeout rto, default 16384ns), so\n"
	  "primitives still complete exactly once and in order. seed N restarts the fault PRNG; clear\n"
	  "removes every rule. Without arguments (or show): the rules, how often each fired, faults\n"
	  "injected by kind, retransmissions, duplicates dropped, CRC errors (sums over all nodes).",
	  "{show,clear}? | seed N | rto DUR | {drop,dup,reorder,delay,corrupt,stall} {RATE,from,to,for,nth,every,count,data,acks}..." },
	{ "params", { 0 }, cmd_params, "params [NAME [VALUE...]]", "Backend parameters",
	  "params fault.rules", NULL, 0,
	  "Without NAME: every parameter the backend defines, with its type, access (rw, ro, wo) and\n"
	  "value. With NAME: its value (a number is also the last result). With VALUE: set it (the words\n"
	  "joined by spaces). The emulator's: fault.* (its fault rules, as the fault command sets them),\n"
	  "swif.* (retransmission counters, sums over the nodes), timing.* (step costs, read-only).\n"
	  "Through dnetd the daemon's backend answers; only a privileged client may set.",
	  "<param> VALUE..." },
	{ "echo", { 0 }, cmd_echo, "echo TEXT...", "Print text", "echo phase 1 done", NULL, NODEV,
	  "Prints the words separated by one blank (variables expanded; quote to keep blanks).",
	  "TEXT..." },
	{ "sleep", { 0 }, cmd_sleep, "sleep DURATION", "Let time pass", "sleep 10us", NULL, DSH_C_ARITY,
	  "Advances virtual time on the emulator (the device works meanwhile); sleeps on hardware.\n"
	  "DURATION: a number and a unit: 5ns, 3us, 2ms, 1s, 5m (or 5min), 1h; a bare number is\n"
	  "refused (0 aside).",
	  "DURATION" },
	{ "set", { 0 }, cmd_set,
	  "set [NAME VALUE | -e | +e | gap DUR | base ADDR | timeout DUR | wid W | posted on|off | sync_area A]",
	  "Variables and settings", "set n 16", NULL, NODEV,
	  "set NAME VALUE defines $NAME. set -e / +e: stop (or not) at the first failure. set gap DUR:\n"
	  "virtual time let pass after each command on the emulator (default 10us). set base ADDR: the\n"
	  "address printed for device offset 0 (default 0x4213c000, as in the thesis). set timeout DUR:\n"
	  "default timeout of waits. set wid W: the WID whose sub-areas are used (in a run, before this\n"
	  "rank's first barrier, signal or waitfor, also every rank's flags without DSH_RANKMAP; after it\n"
	  "the flags stay where the rank joined). set posted on|off:\n"
	  "through dnetd, commands that only write (llcm_write, ww_write, poke) go posted, without a round\n"
	  "trip each; a failure is still reported at its own line (default on). set sync_area A: the 4 KB\n"
	  "of LLCM from A (8-byte aligned, up to 0x7000, the default) that barrier, signal and waitfor\n"
	  "use; every rank sets the same before its first one. set alone lists all.",
	  "{-e,+e,gap,base,timeout,wid,posted,sync_area,<var>,NAME}? | gap DUR | base ADDR | timeout DUR | wid W | posted {on,off} | sync_area ADDR | NAME VALUE" },
	{ "unset", { 0 }, cmd_unset, "unset NAME", "Remove a variable", "unset n", NULL, NODEV | DSH_C_ARITY,
	  "Removing a variable that is not defined is an error.",
	  "<var>" },
	{ "assert", { "expect" }, cmd_assert, "assert TARGET [& MASK] OP VALUE",
	  "Check a register, field, memory word or the last result", "assert llcm 0x10 == 5", NULL, 0,
	  "TARGET: REG, REG.FIELD, REGION OFFSET (the 64-bit word; REGION llcm pw lhb ww sodimm) or last.\n"
	  "OP: == != < > <= >=. A failed assert is a failed command (stops under -e); a failed expect is\n"
	  "counted but does not stop. A 'N passed, N failed' line ends a run in which assertions ran.",
	  "<cond> WORD..." },
	{ "source", { "." }, cmd_source, "source FILE", "Run a script file", "source setup.dsh", NULL, NODEV | DSH_C_ARITY,
	  "Runs FILE (a path relative to the current directory) in the same state: variables, node,\n"
	  "settings. Errors inside carry FILE:LINE; source fails when a command inside failed.\n"
	  "Sourced files nest at most 16 deep.",
	  "<file>" },
	{ "repeat", { 0 }, cmd_repeat, "repeat N [VAR] ... end", "Repeat a block", "repeat 4 i", NULL, NODEV,
	  "Runs the commands up to the matching 'end' N times (0..100000000); VAR (optional) counts\n"
	  "0..N-1. The block may be on the same line (repeat 3 i; echo $i; end). The header and the\n"
	  "matching end are checked before the first iteration; blocks nest at most 32 deep.",
	  "N VAR?" },
	{ "end", { 0 }, cmd_end, "end", "End a repeat block", "repeat 2; echo hi; end", NULL, NODEV,
	  "Closes the innermost repeat block; takes no arguments. An end without a repeat is an error.",
	  "" },
};

const struct dsh_cmd *dsh_cmds(unsigned *n)
{
	*n = sizeof(cmds) / sizeof(cmds[0]);
	return cmds;
}

const struct dsh_cmd *dsh_cmd_find(const char *name)
{
	unsigned n;
	const struct dsh_cmd *c = dsh_cmds(&n);
	for (unsigned i = 0; i < n; i++) {
		if (strcmp(c[i].name, name) == 0)
			return &c[i];
		for (unsigned j = 0; j < 3 && c[i].alias[j]; j++)
			if (strcmp(c[i].alias[j], name) == 0)
				return &c[i];
	}
	return NULL;
}

/* The command nearest to an unknown name, for "did you mean" (NULL: none
 * close enough); names and aliases, libdnet's dnet_suggest. */
const char *dsh_cmd_suggest(const char *name)
{
	unsigned n;
	const struct dsh_cmd *c = dsh_cmds(&n);
	struct dnet_suggest s;
	dnet_suggest_init(&s, name);
	for (unsigned i = 0; i < n; i++) {
		dnet_suggest_add(&s, c[i].name);
		for (unsigned j = 0; j < 3 && c[i].alias[j]; j++)
			dnet_suggest_add(&s, c[i].alias[j]);
	}
	return dnet_suggest_best(&s);
}
