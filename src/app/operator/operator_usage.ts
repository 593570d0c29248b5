/** The help texts of the operator commands, one per command and one for `holdfast turns`. */
export type UsageTopic = 'turns' | 'turns_list' | 'turns_show' | 'turns_resolve' | 'turns_approve' | 'turns_deny' | 'usage' | 'doctor' | 'backup' | 'migrate' | 'web';

const COMMON = `  --config PATH   the configuration file (default: $HOLDFAST_CONFIG, else ./config.yml if it exists)
  -h, --help      print this help and exit`;

const TURN_ARG = `TURN is the turn's id or a unique prefix of it (the 8 characters notices and logs show are enough).`;

const EXIT_STATUS = `Exit status: 0 on success, 2 for bad arguments, bad configuration or no store file,
3 when the turn or call does not exist or the verdict is not allowed.`;

const APPROVAL_EXIT_STATUS = `Exit status: 0 on success, 2 for bad arguments, bad configuration or no store file,
3 when the turn or call does not exist or the call does not wait for approval.`;

const LIST = `Usage: holdfast turns list [--status S]... [--channel C] [--json] [--config PATH]

Lists the saved turns, newest first: short id, status, channel, requester, age, the calls
awaiting a verdict, the calls waiting for approval and the reason. Without --status, what needs
attention: turns suspended, awaiting resolution or awaiting approval, and replies not yet
delivered. Works while the bot runs.

Options:
  --status S      only turns in status S, any case: active, suspended, awaiting_resolution,
                  awaiting_approval, terminal_completed (or completed), failed, cancelled, rejected, expired;
                  repeat it or separate statuses with commas
  --channel C     only turns of the channel with id C
  --json          print one JSON document: {"turns":[…]}
${COMMON}

${EXIT_STATUS}
`;

const SHOW = `Usage: holdfast turns show TURN [--json] [--config PATH]

Shows one turn: its record, its ledger (step, call id, tool, effect, state, input, result or
error, verdict, approval) and its reply's delivery. ${TURN_ARG}

Options:
  --json          print one JSON document: {"turn":{…},"calls":[…],"reply":{…}|null}
${COMMON}

${EXIT_STATUS}
`;

const RESOLVE = `Usage: holdfast turns resolve TURN CALL --applied [--result TEXT] [--json] [--config PATH]
       holdfast turns resolve TURN CALL --not-applied [--note TEXT] [--json] [--config PATH]

Records your verdict on a call whose effect is uncertain (state MANUAL_RESOLUTION_REQUIRED),
after you checked the outside world: it took effect, or it did not. The model is given the
verdict as the call's result when the requester resumes the turn; the call is never sent again.
Once every such call of the turn has a verdict, the running bot tells the requester and
continues the turn, by itself or at their \`resume\`. A verdict is final. ${TURN_ARG}
CALL is the tool call id as the notice and \`turns show\` name it (STEP:CALL where the same id
occurs in two steps of the turn).

Options:
  --applied       the call took effect
  --result TEXT   with --applied: what it did, as the model will see it (e.g. a ticket number)
  --not-applied   the call did not take effect; the model may propose it again as a new call
  --note TEXT     with --not-applied: what you found
  --json          print one JSON document: {"turn","call","state","remaining","turn_status"}
${COMMON}

${EXIT_STATUS}
`;

const APPROVAL = `Usage: holdfast turns approve TURN CALL [--note TEXT] [--json] [--config PATH]
       holdfast turns deny TURN CALL [--note TEXT] [--json] [--config PATH]

Answers a call that waits for a person's approval before it runs (state AWAITING_APPROVAL), as
its request's Approve or Deny would: approve lets it run, deny keeps it from running and the
model is told so, with your note. Once every such call of the turn is answered, the running bot
goes on with the turn in its channel within seconds. An answer is final.
${TURN_ARG}
CALL is the tool call id as the request and \`turns show\` name it (STEP:CALL where the same id
occurs in two steps of the turn).

Options:
  --note TEXT     why, kept with the answer; the model reads it with a denial
  --json          print one JSON document: {"turn","call","state","remaining","turn_status"}
${COMMON}

${APPROVAL_EXIT_STATUS}
`;

const USAGE = `Usage: holdfast usage [--by user|channel|server|model|day] [--since 7d|today|month] [--json] [--config PATH]

Shows what the bot spent, from the daily totals the store keeps: turns started, messages refused
by a limit, model calls, input tokens (and of them, cached), output tokens (and of them,
reasoning) and cost, as priced when the tokens were spent ('-' when no price was configured).
Days are UTC days by the store's clock. Works while the bot runs.

Options:
  --by G          one row per user, channel, server or model, largest spender first,
                  or per day, oldest first; without it, one row of totals
  --since P       the period: Nd for the last N days, today included (1 to 3660), today, or
                  month for this calendar month (default: 7d)
  --json          print one JSON document: {"period":{…},"by":…,"rows":[…]}
${COMMON}

Exit status: 0 on success, 1 when the store failed, 2 for bad arguments, bad configuration or no
store file.
`;

const DOCTOR = `Usage: holdfast doctor [--json] [--config PATH]

Checks the configuration, opens the store and runs SQLite's integrity check, then reports
replies not yet delivered, calls awaiting a verdict, calls waiting for approval and suspended
turns. It calls neither the model provider nor any tool. Works while the bot runs.

Options:
  --json          print one JSON document: {"healthy":…,"problems":[…],"notes":[…],"census":{…}|null}
${COMMON}

Exit status: 0 when healthy, 1 when something needs attention, 2 for bad arguments or configuration.
`;

const BACKUP = `Usage: holdfast backup PATH [--config PATH]

Copies the store to the new file PATH with SQLite's online backup, consistent even while the
bot writes, and the blobs its rows refer to into the directory blobs/ beside PATH. PATH must
not exist yet; give the copy a directory of its own.

Options:
${COMMON}

Exit status: 0 on success, 1 when the copy could not be written, 2 for bad arguments or
configuration, no store file, or a PATH that already exists.
`;

const MIGRATE = `Usage: holdfast migrate --to postgres [--config PATH]

Copies the SQLite store at turn_state.db_path, with its blobs, into the PostgreSQL database at
turn_state.postgres (url and schema), in one transaction: every turn, call, reply, inbox entry,
history entry, memory note, chosen model, approval rule and usage count, ids and states
unchanged. Stop the bot first; the schema must hold no rows yet. Prints each table's count,
checked against the SQLite store. The SQLite file is only read; set turn_state.backend to
postgres afterwards to run the bot on the copy.

Options:
  --to postgres   where to copy the store (the one choice there is)
${COMMON}

Exit status: 0 on success, 1 when the copy failed (the schema is left without a row of it),
2 for bad arguments or configuration (no turn_state.postgres, no store file), 3 while a bot holds
the store, when the schema already holds rows, or when the store is at another schema version.
`;

const WEB = `Usage: holdfast web [--config PATH]

Serves the operators' web console at web.listen over the store, without the bot, until SIGINT or
SIGTERM; the log says where it listens. Works beside the running bots of a PostgreSQL store, and
over a SQLite store with its bot running or stopped. web.listen must be an address no bot of the
configuration listens at already.

Options:
${COMMON}

Exit status: 0 once stopped by SIGINT or SIGTERM, 1 when the store failed, 2 for bad arguments or
configuration (no web.listen), no store file, or an address it cannot listen at.
`;

const TURNS = `Usage: holdfast turns list [--status S]... [--channel C] [--json] [--config PATH]
       holdfast turns show TURN [--json] [--config PATH]
       holdfast turns resolve TURN CALL (--applied [--result TEXT] | --not-applied [--note TEXT]) [--json] [--config PATH]
       holdfast turns approve|deny TURN CALL [--note TEXT] [--json] [--config PATH]

Inspects the saved turns, records verdicts on uncertain calls and answers calls that wait for
approval, while the bot runs.
'holdfast turns COMMAND --help' tells more of each.
`;

/** Each topic's help text. */
export const OPERATOR_USAGE: Readonly<Record<UsageTopic, string>> = {
  turns: TURNS,
  turns_list: LIST,
  turns_show: SHOW,
  turns_resolve: RESOLVE,
  turns_approve: APPROVAL,
  turns_deny: APPROVAL,
  usage: USAGE,
  doctor: DOCTOR,
  backup: BACKUP,
  migrate: MIGRATE,
  web: WEB,
};

/** How each topic's command is written, for `Try 'holdfast … --help'`. */
export const TOPIC_COMMAND: Readonly<Record<UsageTopic, string>> = {
  turns: 'holdfast turns',
  turns_list: 'holdfast turns list',
  turns_show: 'holdfast turns show',
  turns_resolve: 'holdfast turns resolve',
  turns_approve: 'holdfast turns approve',
  turns_deny: 'holdfast turns deny',
  usage: 'holdfast usage',
  doctor: 'holdfast doctor',
  backup: 'holdfast backup',
  migrate: 'holdfast migrate',
  web: 'holdfast web',
};
