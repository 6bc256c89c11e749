import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;

/**
 * The smallest real Kafka Streams application for tests/integration/kafka/group-types.test.ts: reads one
 * topic (args[1]) with the settings of a properties file (args[0], e.g. group.protocol=streams) and prints
 * each value; stateless, so it creates no internal topic. SIGTERM closes it (leaving its group).
 * Run with Java's source launcher: java -cp <kafka jars>:<kafka-streams jar> streams-pass-through.java ...
 */
public class StreamsPassThrough {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
      props.load(in);
    }
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(args[1], Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())).foreach((key, value) -> System.out.println("value " + new String(value)));
    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close();
      closed.countDown();
    }));
    streams.start();
    closed.await();
  }
}
