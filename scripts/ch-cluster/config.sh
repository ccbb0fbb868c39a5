# Config writers for scripts/ch-cluster.sh (sourced, not run). One server = one directory with
# its own config.xml, users.xml, data and logs; every server carries the same remote_servers so
# any of them can coordinate a Distributed query.

# remote_servers block: one cluster per "name=w1,w2,..." spec, each over all N servers in order.
# Usage: ch_remote_servers N TCP_BASE SPEC...
ch_remote_servers() {
  local n=$1 tcp_base=$2; shift 2
  echo "  <remote_servers>"
  local spec name weights i w
  for spec in "$@"; do
    name=${spec%%=*}; weights=${spec#*=}
    IFS=, read -r -a w <<<"$weights"
    echo "    <$name>"
    for ((i = 0; i < n; i++)); do
      echo "      <shard><weight>${w[$i]:-1}</weight><internal_replication>true</internal_replication>"
      # The Distributed tables the tests compare against write too: they reach the shards as admin.
      echo "        <replica><host>127.0.0.1</host><port>$((tcp_base + i))</port><user>admin</user><password>${CH_ADMIN_PASSWORD:-admin}</password></replica></shard>"
    done
    echo "    </$name>"
  done
  echo "  </remote_servers>"
}

# Usage: ch_write_config NODE_DIR HTTP_PORT TCP_PORT REMOTE_SERVERS_XML
ch_write_config() {
  local dir=$1 http=$2 tcp=$3 remote=$4
  mkdir -p "$dir/data/tmp" "$dir/data/user_files" "$dir/data/format_schemas" "$dir/log"
  cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<!-- Written by scripts/ch-cluster.sh; rewritten on every start. -->
<yandex>
  <logger><level>warning</level><log>$dir/log/server.log</log><errorlog>$dir/log/error.log</errorlog><size>10M</size><count>2</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <!-- interserver_http_port omitted on purpose: no replication between these servers. -->
  <max_connections>1024</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <mark_cache_size>67108864</mark_cache_size>
  <path>$dir/data/</path>
  <tmp_path>$dir/data/tmp/</tmp_path>
  <user_files_path>$dir/data/user_files/</user_files_path>
  <format_schema_path>$dir/data/format_schemas/</format_schema_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>admin</default_profile>
  <default_database>default</default_database>
  <!-- UTC so DateTime text means the same thing here as in the router (docs/api.md#4-placement). -->
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
$remote
  <query_log><database>system</database><table>query_log</table><flush_interval_milliseconds>1000</flush_interval_milliseconds></query_log>
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
XML
  local db allowed=""
  for db in ${CH_SHARD_DATABASES:-default analytics}; do allowed+="<database>$db</database>"; done
  # Two users. "default" (what a request without credentials is) is the shard functions' user:
  # readonly=2, only the databases of the local tables, resource limits; docs/deploy.md gives the
  # same user for a current server. "admin" creates tables and loads data (test setup, the router's
  # writes in tests): 18.16 has no per-table grants, so writing needs a user of its own.
  cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <admin><max_memory_usage>2000000000</max_memory_usage><load_balancing>in_order</load_balancing></admin>
    <shard>
      <readonly>2</readonly>
      <max_memory_usage>2000000000</max_memory_usage>
      <max_memory_usage_for_user>4000000000</max_memory_usage_for_user>
      <max_concurrent_queries_for_user>64</max_concurrent_queries_for_user>
      <max_execution_time>60</max_execution_time>
      <timeout_overflow_mode>throw</timeout_overflow_mode>
      <load_balancing>in_order</load_balancing>
    </shard>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>shard</profile><quota>shard</quota>
      <allow_databases>$allowed</allow_databases>
    </default>
    <admin>
      <password>${CH_ADMIN_PASSWORD:-admin}</password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>admin</profile><quota>admin</quota>
    </admin>
  </users>
  <quotas>
    <admin><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></admin>
    <shard><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></shard>
  </quotas>
</yandex>
XML
}
