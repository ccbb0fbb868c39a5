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
      echo "        <replica><host>127.0.0.1</host><port>$((tcp_base + i))</port></replica></shard>"
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
  <default_profile>default</default_profile>
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
  cat >"$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage><load_balancing>in_order</load_balancing></default>
    <readonly><readonly>1</readonly></readonly>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile><quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
}
