import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import java.util.ArrayList;
import java.util.List;

// Tasks fail whenever they run on executor 1: the shape of sparkyard's
// excluded-executor-killed scenario (a failing-executor fault on executor 1).
public class BadExecutor {
  public static void main(String[] args) throws Exception {
    JavaSparkContext sc = new JavaSparkContext(new SparkConf().setAppName("BadExecutor"));
    List<Integer> data = new ArrayList<>();
    for (int i = 0; i < 16; i++) data.add(i);
    long n = sc.parallelize(data, 8).map(x -> {
      Thread.sleep(1000);
      if ("1".equals(SparkEnv.get().executorId())) throw new RuntimeException("injected failure");
      return x;
    }).count();
    System.out.println("count " + n);
    Thread.sleep(3000);
    sc.stop();
  }
}
