/* polyopt opt regression (hostile user 43b): a min or max bound written with another test than its operands, i > 5 ? i - 5 : 0 (the test i - 5 > 0), was refused; it is the same max. */
#include <stdio.h>
double A[40], B[40];
void f(int n) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = (i > 5 ? i - 5 : 0); j < (i + 3 < n ? i + 3 : n); j++)
      B[i] += A[j] * (j + 1);
  for (int i = 0; i < n; i++)
    for (int j = (5 < i ? i - 5 : 0); j < (n - 1 > i + 2 ? i + 3 : n); j++)
      A[i] += B[j];
#pragma endscop
}
int main(void) { for (int i = 0; i < 40; i++) { A[i] = i % 7; B[i] = i % 3; } f(40);
  for (int i = 0; i < 40; i++) printf("%a %a\n", A[i], B[i]); return 0; }
