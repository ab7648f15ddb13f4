#!/usr/bin/env python3
"""Extracts the Hadoop defaults a Spark 4.0.0 driver's `Configuration` holds from pyspark 4.0.0's
`hadoop-client-api-3.4.1.jar`: `core-default.xml`, `yarn-default.xml` and `mapred-default.xml`
(the three default resources a YARN AM's driver has loaded: `Configuration`, `YarnConfiguration`,
`JobConf`; no `hdfs-default.xml`, which only `HdfsConfiguration` adds). It writes them as
Hadoop's `Configuration.iterator` returns them, which a real 4.0.0 event log shows:

- names trimmed, values raw (`${...}` unexpanded, whitespace and line breaks kept),
  as `Configuration.Parser.handleEndElement` keeps them;
- properties without a `<value>` (or an empty one) dropped: `loadProperty` skips a null value;
- a deprecated name replaced by its new name(s) (`Parser.handleEndElement` asks
  `deprecations.getDeprecatedKeyMap()`): of the three files' names only `fs.default.name` is
  deprecated (`Configuration.defaultDeprecations`: `fs.default.name` -> `fs.defaultFS`).

Output: src/outputs/hadoop_defaults.tsv.zst, one `name<TAB>value` line per property sorted by
name, value escaped (`\\` `\n` `\t` `\r`), compressed with the `zstd` command.

  scripts/hadoop-defaults.py [JAR] [OUT]
"""
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

JAR = "/work/pyspark-venv/lib/python3.11/site-packages/pyspark/jars/hadoop-client-api-3.4.1.jar"
OUT = "src/outputs/hadoop_defaults.tsv.zst"
FILES = ["core-default.xml", "yarn-default.xml", "mapred-default.xml"]
# Configuration.defaultDeprecations (hadoop-common 3.4.1), for the names the three files hold.
DEPRECATED = {"fs.default.name": ["fs.defaultFS"]}


def escape(v):
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def main():
    jar = sys.argv[1] if len(sys.argv) > 1 else JAR
    out = sys.argv[2] if len(sys.argv) > 2 else OUT
    props = {}
    with zipfile.ZipFile(jar) as z:
        for f in FILES:
            root = ET.fromstring(z.read(f))
            for p in root.iter("property"):
                name, value = p.find("name"), p.find("value")
                if name is None or name.text is None or value is None or not value.text:
                    continue
                for n in DEPRECATED.get(name.text.strip(), [name.text.strip()]):
                    props[n] = value.text
    text = "".join(f"{k}\t{escape(v)}\n" for k, v in sorted(props.items()))
    data = subprocess.run(["zstd", "-19", "-q", "-c"], input=text.encode(), check=True,
                          stdout=subprocess.PIPE).stdout
    with open(out, "wb") as f:
        f.write(data)
    print(f"{len(props)} properties, {len(text)} bytes, {len(data)} compressed -> {out}")


if __name__ == "__main__":
    main()
