/* SPDX-License-Identifier: MIT */
/* The subcommands gpurec.c dispatches to; each lives in its module and prints its own errors. */
#ifndef GR_CMD_H
#define GR_CMD_H

#define GPUREC_VERSION "0.1.0"

/* Each returns the process exit status: 0 success, 1 failure, 2 usage error (record: the
 * traced command's exit status). argv[0] is the subcommand name. */
int cmd_record(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
