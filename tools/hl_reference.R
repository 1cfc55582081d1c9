# Reference values for tests/it/compare_reference.rs (issue 13): the Hodges-Lehmann shift and
# its confidence interval from R's wilcox.test(x, y, conf.int = TRUE) (defaults: exact = NULL,
# correct = TRUE, conf.level = 0.95). Run: Rscript tools/hl_reference.R   (R 4.2.2)
# Prints Rust literals: (name, x, y, estimate, ci_low, ci_high, achieved conf.level).
cases <- list(
  exact_4_5 = list(c(1.1, 2.3, 0.7, 4.5), c(3.3, 5.1, 6.2, 2.9, 7.7)),
  exact_8_8 = list(c(10.2, 11.5, 9.8, 12.1, 10.9, 13.3, 9.1, 11.0),
                   c(12.4, 13.9, 11.7, 14.2, 12.8, 15.0, 13.1, 12.2)),
  exact_3_3 = list(c(5.5, 6.1, 7.3), c(1.0, 2.2, 3.1)),
  exact_4_4_ns = list(c(13000000, 12600000, 13400000, 12900000), c(10100000, 9900000, 10300000, 10000000)),
  ties_6_5 = list(c(1.0, 2.0, 2.0, 3.0, 3.0, 3.0), c(2.0, 3.0, 4.0, 4.0, 5.0)),
  ties_4_4 = list(c(100.0, 100.0, 120.0, 130.0), c(100.0, 140.0, 150.0, 150.0)),
  ties_9_10 = list(c(3, 4, 2, 5, 6, 1, 7, 8, 1), c(5, 6, 7, 9, 10, 4, 8, 11, 12, 6))
)
set.seed(1)
cases$asymptotic_55_60 <- list(round(rnorm(55, 10, 2), 6), round(rnorm(60, 11, 2), 6))
cat(sprintf("// %s\n", R.version.string))
num1 <- function(v) {
  # The shortest of 15-17 significant digits that reads back as the same double.
  for (d in 15:17) {
    s <- sprintf(paste0("%.", d, "g"), v)
    if (as.numeric(s) == v) break
  }
  if (grepl("[.e]", s)) s else paste0(s, ".0")  # a Rust f64 literal
}
num <- function(v) vapply(v, num1, "")
fmt <- function(v) paste0("&[", paste(num(v), collapse = ", "), "]")
for (name in names(cases)) {
  x <- cases[[name]][[1]]; y <- cases[[name]][[2]]
  r <- suppressWarnings(wilcox.test(x, y, conf.int = TRUE))
  cat(sprintf('("%s", %s, %s, %s, %s, %s, %s),\n', name, fmt(x), fmt(y),
              num(r$estimate), num(r$conf.int[1]), num(r$conf.int[2]),
              num(attr(r$conf.int, "conf.level"))))
}
