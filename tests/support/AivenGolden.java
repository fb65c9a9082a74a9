// Golden bytes for tests/unit/adapters/dialects/aiven/test_writers.py, from the Java classes Aiven's
// CompressionType and ObjectMapperProvider use (not run by the test suite; needs a JDK and the
// snappy-java, zstd-jni and Jackson jars, e.g. PySpark's):
//
//   java -cp "$(python -c 'import pyspark,os;print(os.path.dirname(pyspark.__file__))')/jars/*" \
//       tests/support/AivenGolden.java
//
// Each stream is used as Aiven's OutputWriter#close uses it: write, flush(), close().
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.zip.GZIPOutputStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.github.luben.zstd.ZstdOutputStream;
import org.xerial.snappy.SnappyOutputStream;

public class AivenGolden {
    interface Wrap { OutputStream wrap(OutputStream out) throws Exception; }

    static byte[] compress(Wrap wrap, byte[] data) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        OutputStream out = wrap.wrap(bytes);
        out.write(data);
        out.flush();
        out.close();
        return bytes.toByteArray();
    }

    static String big() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            text.append("dGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,").append(i).append('\n');
        }
        return text.toString();
    }

    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] small = "dGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,0\ndGVzdC12YWx1ZQ==,dGVzdC1rZXk=,1000,1"
                .getBytes(StandardCharsets.UTF_8);
        byte[] large = big().getBytes(StandardCharsets.UTF_8);
        Wrap[] wraps = { out -> new GZIPOutputStream(out, true), SnappyOutputStream::new, ZstdOutputStream::new };
        String[] names = { "gzip", "snappy", "zstd" };
        for (int i = 0; i < wraps.length; i++) {
            System.out.println(names[i] + " small " + hex.formatHex(compress(wraps[i], small)));
            byte[] out = compress(wraps[i], large);
            System.out.println(names[i] + " large " + out.length + " " + hex.formatHex(sha.digest(out)));
        }
        ObjectMapper mapper = new ObjectMapper();
        mapper.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
        String json = "{\"s\":\"a\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\\u007f\\u2028é😀\",\"d\":[1.0,1e16,0.0001,123.456,1e-3,1e7,-0.0]}";
        System.out.println("jackson " + hex.formatHex(mapper.writeValueAsBytes(mapper.readTree(json))));
        for (long millis : new long[] {0L, 1000L, 1234L, 1100L, -1L, 1715224653000L}) {
            System.out.println("instant " + millis + " " + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(millis)));
        }
    }
}
