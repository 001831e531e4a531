/* dsh-run: the pieces of the reports (report.c) that its unit test
 * (tests/unit/test_run_report.c) checks one by one; report_ctrf and
 * report_junit (run.h) are the reports themselves. */
#ifndef DSH_RUN_REPORT_H
#define DSH_RUN_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "run.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD, what stands for text that is not UTF-8 */

/* s with each byte that does not start a valid UTF-8 character, and
 * U+FFFE/U+FFFF, made U+FFFD (*len: the result's length). */
char *report_utf8_valid(const char *s, size_t *len);
/* Each script's name in the reports (report_names_free frees them). */
char **report_script_names(const struct run *r);
void report_names_free(char **names, unsigned n);
/* A JUnit classname: "dsh-run." and the script's name, its .dsh dropped
 * and its dots made '_'. */
char *report_junit_classname(const char *script_name);

#endif
