import { describe, expect, it } from "vitest";
import { redactConnectorConfig } from "@/lib/connect/connector-config";

describe("redactConnectorConfig", () => {
  it("shows only keys known to hold no secret, with their client prefixes; everything else is [redacted]", () => {
    const config = {
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      "source.cluster.alias": "east",
      topics: "orders|payments",
      "source.cluster.bootstrap.servers": "east-1:9092",
      "target.cluster.security.protocol": "SASL_SSL",
      "source.cluster.consumer.auto.offset.reset": "earliest",
      "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
      "transforms.cast.spec": "int32",
      "source.cluster.sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required password=\"x\";",
      "basic.auth.user.info": "user:pa55",
      "schema.registry.basic.auth.user.info": "user:pa55",
      "target.cluster.ssl.keystore.location": "/etc/ks.jks",
      "my.custom.setting": "anything",
    };
    expect(redactConnectorConfig(config)).toEqual({
      "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
      "source.cluster.alias": "east",
      topics: "orders|payments",
      "source.cluster.bootstrap.servers": "east-1:9092",
      "target.cluster.security.protocol": "SASL_SSL",
      "source.cluster.consumer.auto.offset.reset": "earliest",
      "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
      "transforms.cast.spec": "[redacted]",
      "source.cluster.sasl.jaas.config": "[redacted]",
      "basic.auth.user.info": "[redacted]",
      "schema.registry.basic.auth.user.info": "[redacted]",
      "target.cluster.ssl.keystore.location": "[redacted]",
      "my.custom.setting": "[redacted]",
    });
  });
});
