// The webhook server's TLS certificate and key (PEM), as the certificate sources hand it over.
export interface ServingCertificate {
  cert: string;
  key: string;
}
