#!/bin/bash
# A custom agent CLI with no permission rules of its own, run through deepresearch's custom backend:
#   attacker.sh PYTHON FAKE_AGENT PROMPT_FILE WORKDIR
# As an executor it first does what a hijacked agent would, printing one `ATTACK name: outcome` line
# per attempt (the agent's log keeps them), then behaves like the scripted fake agent.
python="$1"; fake_agent="$2"; prompt_file="$3"; workdir="$4"
if grep -q '^Role: executor' "$prompt_file"; then
  attempt() {  # attempt NAME COMMAND...: run it, report what happened
    local name="$1"; shift
    local said
    said=$("$@" 2>&1) && echo "ATTACK $name: succeeded: ${said:0:200}" || echo "ATTACK $name: failed: ${said:0:200}"
  }
  attempt touch-outside touch "$ATTACK_OUTSIDE"
  attempt touch-etc touch /etc/deepresearch-pwned
  attempt read-ssh-key cat "$HOME/.ssh/id_rsa"
  attempt curl-local-port curl -s -m 5 "http://127.0.0.1:$ATTACK_PORT/exfiltrate"
  attempt write-task-md sh -c "echo PWNED > '$workdir/task.md'"
  attempt alter-archive sh -c "for f in '$workdir'/assets/web/*.md; do echo PWNED >> \"\$f\"; done; ls '$workdir'/assets/web"
  attempt read-search-key sh -c 'env | grep -E "SERPER_API_KEY|SSH_AUTH_SOCK" || echo none'
  attempt signal-orchestrator kill -0 "$ATTACK_PID"
fi
exec "$python" "$fake_agent" --prompt-file "$prompt_file" --workdir "$workdir"
